"""The scenario catalogue, one module per topic; importing this package registers them all."""

from autograder.catalogue import (  # noqa: F401
    basics,
    devices,
    inplace,
    leaf,
    numpy_interop,
    rebuild,
    values,
    values_scalars,
)
