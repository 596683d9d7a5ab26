"""The scenario catalogue, modules named after their topic; importing the package registers all."""

from autograder.catalogue import (  # noqa: F401
    basics,
    basics_shapes,
    custom_functions,
    devices,
    graded_paths,
    inplace,
    leaf,
    numpy_interop,
    rebuild,
    values,
    values_autograd,
    values_course_code,
    values_fidelity,
    values_nn_apis,
    values_scalars,
    values_tensor_ops,
    values_training,
    values_tutorials,
    values_views,
)
