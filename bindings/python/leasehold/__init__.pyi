from ._leasehold import *
from ._leasehold import __version__ as __version__, TIME_MIN as TIME_MIN, TIME_MAX as TIME_MAX

BACKENDS: tuple[str, ...]
VECTOR_BACKENDS: tuple[str, ...]
