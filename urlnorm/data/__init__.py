"""Data urlnorm ships: the referrer database and GA4's source categories (README.md here)."""
