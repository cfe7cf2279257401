"""urlnorm: bulk URL parsing, normalisation and deduplication."""
