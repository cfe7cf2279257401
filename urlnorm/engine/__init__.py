"""The engine: the native kernel over Arrow columns, Python only where only Python answers.

Its column operations are in :mod:`urlnorm.engine.columns` (the kernel, or without it the core
once per distinct value), whose names it hands on; :mod:`~urlnorm.engine.batch` holds every
column function's batch function, and :mod:`~urlnorm.engine.analytics`,
:mod:`~urlnorm.engine.url_parts` and :mod:`~urlnorm.engine.attribution` the columns they
compute.
"""

from urlnorm.engine import columns
from urlnorm.engine.columns import *  # noqa: F403 (every name of its __all__)

__all__ = columns.__all__
