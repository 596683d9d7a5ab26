"""Every error and warning text, worded exactly as PyTorch 2.13 words it.

PyTorch names itself in some messages ("torch.FloatTensor", "torch.Size"); minigrad writes its
own name there, and the autograder sets library names aside when comparing.
"""

LIB = "minigrad"

SEQUENCE_INDEX_DEPRECATED = (
    "Using a non-tuple sequence for multidimensional indexing is deprecated and will be changed "
    "in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be "
    "interpreted as tensor index, x[torch.tensor(seq)], which will result either in an error or "
    "a different result"
)
NONLEAF_GRAD_ACCESS = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
    "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
    "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
    "instead. See github.com/pytorch/pytorch/pull/30531 for more information."
)
REQUIRES_GRAD_NONLEAF_LONG = (
    "you can only change requires_grad flags of leaf variables. If you want to use a computed "
    "variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach()."
)
REQUIRES_GRAD_NONLEAF_SHORT = "you can only change requires_grad flags of leaf variables."
FACTORY_INT_REQUIRES_GRAD = "Only Tensors of floating point and complex dtype can require gradients"
METHOD_INT_REQUIRES_GRAD = "only Tensors of floating point dtype can require gradients"
ATTR_INT_REQUIRES_GRAD = "only Tensors of floating point and complex dtype can require gradients"
DATA_NOT_FLOATING = (
    "data set to a tensor that requires gradients must be floating point or complex dtype"
)
RETAIN_GRAD_NO_GRAD = "can't retain_grad on Tensor that has requires_grad=False"
INT_NEGATIVE_UNSIGNED = "can't convert negative int to unsigned"
INT_TOO_BIG = "int too big to convert"
HOOK_REPLACED_NONE = "can't replace a None gradient with a non-None value"
BACKWARD_EMPTY_INPUTS = "`inputs` argument to `backward()` cannot be empty."
BACKWARD_INPUTS_MAPPING = (
    "`inputs` argument to `backward()` must be a dict, not {}. "
    "Other Mapping types are not supported."
)
BACKWARD_INPUT_NOT_TENSOR = "all inputs have to be Tensors or GradientEdges, but got {}"

IMPLICIT_GRAD_NON_SCALAR = "grad can be implicitly created only for scalar outputs"
GRADIENTS_NOT_TENSORS = "gradients can be either Tensors or None, but got {}"
GRADIENTS_COUNT = "got {} tensors and {} gradients"
REQUIRES_GRAD_NOT_BOOL = "requires_grad must be a bool"
REQUIRES_GRAD_ARG_NOT_BOOL = "requires_grad_(): argument 'requires_grad'{} must be bool, not {}"
DATA_NOT_TENSOR = "Variable data has to be a tensor, but got {}"
NO_GRAD_FN = "element {} of tensors does not require grad and does not have a grad_fn"
SECOND_BACKWARD = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you "
    "call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward "
    "through the graph a second time or if you need to access saved tensors after calling "
    "backward."
)
UNUSED_INPUT = (
    "The differentiated Tensor at index {} appears to not have been used in the graph. "
    "Set allow_unused=True if this is the desired behavior."
)
INPUT_NO_GRAD = "One of the differentiated Tensors does not require grad"


INT_NEGATIVE_POWER = "Integers to negative integer powers are not allowed."
SCATTER_REDUCE_DEPRECATED = (
    "The reduce argument of torch.scatter with Tensor src is deprecated and will be removed in "
    "a future PyTorch release. Use torch.scatter_reduce instead for more reduction options."
).replace("torch.", f"{LIB}.")
SCATTER_REDUCE_NAMES = "reduce argument must be either add or multiply."
T_NOT_2D = (
    "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated "
    "and it will throw an error in a future release. Consider `x.mT` to transpose batches of "
    f"matrices or `x.permute(*{LIB}.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a "
    "tensor."
)
T_ON_ZERO_DIM = (
    "Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases."
)


def where_condition(type_name):
    return (
        f"where expected condition to be a boolean tensor, but got a tensor with dtype {type_name}"
    )


def mean_dtype(which, type_name):
    return (
        f"mean(): could not infer output dtype. {which} dtype must be either a floating point "
        f"or complex dtype. Got: {type_name}"
    )


def shape_mismatch(grad_shape, out_shape):
    return (
        f"Mismatch in shape: grad_output[0] has a shape of {LIB}.Size({list(grad_shape)}) and "
        f"output[0] has a shape of {LIB}.Size({list(out_shape)})."
    )


def version_mismatch(type_name, shape, producer, current, expected):
    which = f", which is output 0 of {producer}," if producer else ""
    return (
        "one of the variables needed for gradient computation has been modified by an inplace "
        f"operation: [{type_name} {list(shape)}]{which} is at version {current}; expected "
        f"version {expected} instead. Hint: enable anomaly detection to find the operation that "
        "failed to compute its gradient, with torch.autograd.set_detect_anomaly(True, "
        "check_nan=False)."
    )


LEAF_INPLACE = "a leaf Variable that requires grad is being used in an in-place operation."
VIEW_OF_LEAF_INPLACE = (
    "a view of a leaf Variable that requires grad is being used in an in-place operation."
)


def view_rebase(flags, fn_name, output_nr, indirect):
    """PyTorch's refusal of an in-place write into (indirect: into the base or another view
    of) a view made under no_grad (`flags` "no_grad"), one of several outputs ("multi:<op>")
    or an output of a custom autograd.Function ("custom");
    `fn_name` is the view's own node name less "Backward0", None if it has none."""
    modified = "its base or another view of its base has been" if indirect else "is being"
    if flags == "no_grad" or fn_name is None:
        prefix = (
            f"Output {output_nr} of {fn_name} is a view of a view which was created in"
            if fn_name is not None
            else "A view was created in"
        )
        text = f"{prefix} no_grad mode and {modified} modified inplace with grad mode enabled."
    else:
        text = f"Output {output_nr} of {fn_name} is a view and {modified} modified inplace."
    if flags == "custom":
        return text + CUSTOM_VIEW_INPLACE
    if flags == "no_grad":
        return text + (
            " Given that this use case is ambiguous and error-prone, it is forbidden. You can "
            "clarify your code by moving both the view and the inplace either both inside the "
            "no_grad block (if you don't want the inplace to be tracked) or both outside (if you "
            "want the inplace to be tracked)."
        )
    return text + (
        " This view is the output of a function that returns multiple views. Such functions "
        "do not allow the output views to be modified inplace. You should replace the inplace "
        "operation by an out-of-place one."
    )


DETACH_VIEW_INPLACE = (
    "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel "
    "(DDP) for training, and gradient_as_bucket_view is set as True, gradients are views of DDP "
    "buckets, and hence detach_() cannot be called on these gradients. To fix this error, please "
    "refer to the Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution."
)

NUMPY_REQUIRES_GRAD = (
    "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."
)


def numpy_of_device(dev):
    return (
        f"can't convert {dev} device type tensor to numpy. Use Tensor.cpu() to copy the tensor "
        "to host memory first."
    )


COPY_CONSTRUCT = (
    "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
    "sourceTensor.detach().clone().requires_grad_(True), rather than {}(sourceTensor)."
)
SCALAR_FROM_GRAD_TENSOR = (
    "Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior.\n"
    "Consider using tensor.detach() first."
)
ONLY_ONE_ELEMENT = "only one element tensors can be converted to Python scalars"
FILL_VALUE_DIMS = "fill_ only supports 0-dimension value tensor but got tensor with {} dimensions."
CAT_ZERO_DIM = "zero-dimensional tensor (at position {}) cannot be concatenated"
NON_WRITABLE_NUMPY = (
    "The given NumPy array is not writable, and PyTorch does not support non-writable tensors. "
    "This means writing to this tensor will result in undefined behavior. You may want to copy "
    "the array to protect its data or make it writable before converting it to a tensor. This "
    "type of warning will be suppressed for the rest of this program."
)
NEGATIVE_STRIDES = (
    "At least one stride in the given numpy array is negative, and tensors with negative "
    "strides are not currently supported. (You can probably work around this by making a copy "
    "of your array  with array.copy().) "
)

GRAD_NOT_TENSOR = "assigned grad expected to be a Tensor or None but got grad of type {}"
GRAD_SELF = "can't assign Variable as its own grad"


def grad_size(got, want):
    return (
        f"attempting to assign a gradient of size '{list(got)}' to a tensor of size "
        f"'{list(want)}'. Please ensure that the gradient and the tensor are the same size"
    )


def grad_dtype(got, want):
    return (
        f"attempting to assign a gradient with dtype '{got}' to a tensor with grad_dtype "
        f"'{want}'. The gradient must match the tensor's grad_dtype (defaults to the tensor's "
        "dtype). You can set the tensor's grad_dtype attribute with a specific dtype, or None to "
        "allow any dtype. Set grad_dtype with caution. Diverging the dtypes of a tensor and its "
        "gradient may break downstream systems that assume they match."
    )


def grad_device(got, want):
    return (
        f"attempting to assign a gradient with device type '{got.type}' to a tensor with device "
        f"type '{want.type}'. Please ensure that the gradient and the tensor are on the same "
        "device"
    )


def devices_differ(a, b):
    # PyTorch names the CUDA device first, whichever operand it is.
    first, second = (a, b) if a.type == "cuda" else (b, a)
    return (
        "Expected all tensors to be on the same device, but found at least two devices, "
        f"{first} and {second}!"
    )


def argument_on_another_device(argument, device, common, method):
    # PyTorch's generated kernel wrapper: `common` is its first tensor argument's device, and a
    # call mixing CPU and CUDA runs the CUDA kernel's wrapper, whichever argument is on CUDA.
    return (
        f"Expected all tensors to be on the same device, but got {argument} is on {device}, "
        f"different from other tensors on {common} (when checking argument in method "
        f"wrapper_CUDA_{method})"
    )


VIEW_NOT_COMPATIBLE = (
    "view size is not compatible with input tensor's size and stride (at least one dimension "
    "spans across two contiguous subspaces). Use .reshape(...) instead."
)


def cannot_cast_result(result, out):
    return f"result type {result} can't be cast to the desired output type {out}"


NON_LEAF_OPTIMIZE = "can't optimize a non-leaf Tensor"
OPTIMIZER_EMPTY = "optimizer got an empty parameter list"
OPTIMIZER_PARAMS_TENSOR = (
    "params argument given to the optimizer should be an iterable of Tensors or dicts, but got "
)
OPTIMIZER_NOT_TENSOR = "optimizer can only optimize Tensors, but one of the params is "
OPTIMIZER_DUPLICATE_PARAMS = (
    "optimizer contains a parameter group with duplicate parameters; in future, this will cause "
    "an error; see github.com/pytorch/pytorch/issues/40967 for more information"
)


def mm_shapes(a, b):
    return f"mat1 and mat2 shapes cannot be multiplied ({a[0]}x{a[1]} and {b[0]}x{b[1]})"


def addmm_dtypes(first, second, a, b):
    return f"{first} and {second} must have the same dtype, but got {a} and {b}"


def expand_bias(bias_shape, out_shape):
    """addmm's text for a bias that does not broadcast to the output (PyTorch's expand
    names the last dimension that fails)."""
    n = len(out_shape)
    for i in reversed(range(len(bias_shape))):
        d = n - len(bias_shape) + i
        if bias_shape[i] != 1 and bias_shape[i] != out_shape[d]:
            break
    return (
        f"The expanded size of the tensor ({out_shape[d]}) must match the existing size "
        f"({bias_shape[i]}) at non-singleton dimension {d}.  Target sizes: {list(out_shape)}.  "
        f"Tensor sizes: {list(bias_shape)}"
    )


def linear_dims(a, b):
    return f"both arguments to linear need to be at least 1D, but they are {a}D and {b}D"


ELEMENTWISE_MEAN = (
    "reduction='elementwise_mean' is deprecated. Please use reduction='mean' instead."
)


def mse_target_size(target_shape, input_shape):
    return (
        f"Using a target size ({LIB}.Size({list(target_shape)})) that is different to the input "
        f"size ({LIB}.Size({list(input_shape)})). This will likely lead to incorrect results due "
        "to broadcasting. Please ensure they have the same size."
    )


def nll_batch_size(n_input, n_target):
    return f"Expected input batch_size ({n_input}) to match target batch_size ({n_target})."


def nll_1d_target(n):
    return f"For 1D input, 1D target must have size 1, but got target size: {n}"


ZERO_ELEMENT_INIT = "Initializing zero-element tensors is a no-op"
SGD_NESTEROV = "Nesterov momentum requires a momentum and zero dampening"

BOOL_NEGATION = (
    "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert "
    "a mask, use the `~` or `logical_not()` operator instead."
)
BOOL_SUBTRACTION_TWO = (
    "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
    "`logical_xor()` operator instead."
)
BOOL_RELU = "Boolean inputs not supported for relu"
BOOL_ARG = "{}(): does not support bool input"


def bool_not_implemented(op, device):
    return f"\"{op}_{device.type}\" not implemented for 'Bool'"


def not_implemented_for(kernel, dtype):
    """A kernel PyTorch does not dispatch for this dtype: "normal_kernel_cpu" and the like."""
    from ._dtypes import SCALAR_TYPE_NAME

    return f"\"{kernel}\" not implemented for '{SCALAR_TYPE_NAME[dtype]}'"


FACTORY_FLAG_NOT_BOOL = "{}(): argument 'requires_grad' must be bool, not {}"
ZEROS_NEGATIVE = "zeros: Dimension size must be non-negative."
NEGATIVE_DIMENSION = "Trying to create tensor with negative dimension {}: {}"
EYE_NEGATIVE = "{} must be greater or equal to 0, got {}"
LINSPACE_NEGATIVE_STEPS = "number of steps must be non-negative"


OVERFLOW_LONG_LONG = "Overflow when unpacking long long"
# A call PyTorch's parser refuses: the method's wrapper (_signatures.parsed) gives the text.
PARSER_REFUSED = "{}() received an invalid combination of arguments"
INT_DIVISION_BY_ZERO = "ZeroDivisionError"
VALUE_OVERFLOW = "value cannot be converted to type {} without overflow"
ALPHA_FLOAT_INTEGRAL = (
    "For integral input tensors, argument alpha must not be a floating point number."
)


def promotion_unsigned(a, b):
    return (
        "Promotion for uint16, uint32, uint64 types is not supported, attempted to promote "
        f"{a} and {b}"
    )


READ_ONLY_ATTRIBUTE = "attribute '{}' of '" + LIB + "._C.TensorBase' objects is not writable"
LEGACY_NOT_SEQUENCE = "new(): data must be a sequence (got {})"


def legacy_options_mismatch(expected, got, device):
    """FloatTensor(t) of a tensor of another dtype: PyTorch prints both TensorOptions."""
    from ._dtypes import CPP_NAME

    def options(dtype):
        return (
            f"TensorOptions(dtype={CPP_NAME[dtype]}, device={device}, layout=Strided, "
            "requires_grad=false (default), pinned_memory=false (default), "
            "memory_format=(nullopt))"
        )

    return f"expected {options(expected)} (got {options(got)})"


def reshape_ambiguous(shape):
    return (
        f"cannot reshape tensor of 0 elements into shape {shape} because the unspecified "
        "dimension size -1 can be any value and is ambiguous"
    )


def cpp_number(value):
    """A number as C++'s ostream prints it in PyTorch's checks: 3, 3.5, -1e-07, nan."""
    return format(float(value), "g")


MODULE_ASSIGN_BEFORE_INIT = "cannot assign {} before Module.__init__() call"
SEQUENTIAL_INDEX = "index {} is out of range"
UNIFORM_RANGE = "uniform_ expects to return a [from, to) range, but found from={} > to={}"
NORMAL_STD = "normal expects std >= 0.0, but found std {}"


BOOL_SUBTRACTION = (
    "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to "
    "invert a mask, use the `~` or `logical_not()` operator instead."
)


def dim_out_of_range(dim, ndim):
    # A 0-d tensor takes dims as if it had one (PyTorch's wrap_scalar).
    n = max(ndim, 1)
    return f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})"


def index_out_of_bounds(index, dim, size):
    return f"index {index} is out of bounds for dimension {dim} with size {size}"


def too_many_indices(ndim):
    return f"too many indices for tensor of dimension {ndim}"


def mask_shape(mask_shape, j, shape, dim):
    return (
        f"The shape of the mask {list(mask_shape)} at index {j} does not match the shape of the "
        f"indexed tensor {list(shape)} at index {dim}"
    )


INDEX_0D = (
    "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ "
    "to convert a 0-dim tensor to a number"
)
SLICE_0D = "slice() cannot be applied to a 0-dim tensor."
NEGATIVE_STEP = "step must be greater than zero"
INDEX_TENSOR_DTYPE = "tensors used as indices must be long, int, byte or bool tensors"
INDICES_DEVICE = "indices should be either on cpu or on the same device as the indexed tensor ({})"


def invalid_index_type(name):
    return (
        "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid "
        f"indices (got {name})"
    )


def dim_repeated(dim):
    return f"dim {dim} appears multiple times in the list of dims"


def must_be_bool(fn, name, position, value):
    return (
        f"{fn}(): argument '{name}' (position {position}) must be bool, not {type(value).__name__}"
    )


def permute_length(ndim, given):
    return (
        "permute(sparse_coo): number of dimensions in the tensor input does not match the length "
        f"of the desired ordering of dimensions i.e. input.dim() = {ndim} is not equal to "
        f"len(dims) = {given}"
    )


PERMUTE_DUPLICATE = "permute(): duplicate dims are not allowed."

CAT_EMPTY = f"{LIB}.cat(): expected a non-empty list of Tensors"
STACK_EMPTY = "stack expects a non-empty TensorList"


def cat_ndim(first, other):
    return f"Tensors must have same number of dimensions: got {first} and {other}"


def cat_sizes(dim, want, got, i):
    return (
        f"Sizes of tensors must match except in dimension {dim}. Expected size {want} but got "
        f"size {got} for tensor number {i} in the list."
    )


def dot_dtypes(a, b):
    return f"dot : expected both vectors to have same dtype, but found {a} and {b}"


def dot_sizes(a, b):
    return (
        f"inconsistent tensor size, expected tensor [{a}] and src [{b}] to have the same number "
        f"of elements, but got {a} and {b} elements respectively"
    )


def mv_dtypes(mat, vec):
    return f"addmv input tensors must have the same dtype, but got {vec}, {mat}, and {vec}"


def expand_too_few(type_name, shape, sizes):
    return (
        f"expand({type_name}{{{list(shape)}}}, size={list(sizes)}): the number of sizes provided "
        f"({len(sizes)}) must be greater or equal to the number of dimensions in the tensor "
        f"({len(shape)})"
    )


def expand_leading(size, dim):
    return (
        f"The expanded size of the tensor ({size}) isn't allowed in a leading, non-existing "
        f"dimension {dim}"
    )


def expand_mismatch(size, have, dim, sizes, shape):
    return (
        f"The expanded size of the tensor ({size}) must match the existing size ({have}) at "
        f"non-singleton dimension {dim}.  Target sizes: {list(sizes)}.  Tensor sizes: "
        f"{list(shape)}"
    )


INTERNAL_OVERLAP = (
    "unsupported operation: more than one element of the written-to tensor refers to a single "
    "memory location. Please clone() the tensor before performing the operation."
)


def cant_assign(value, tensor_type):
    return f"can't assign a {type_name(value)} to a {tensor_type}"


def copy_not_tensor(value):
    return f"copy_(): argument 'other' (position 1) must be Tensor, not {type_name(value)}"


def output_shape(shape, target):
    return f"output with shape {list(shape)} doesn't match the broadcast shape {list(target)}"


def reduce_empty(name):
    return f"{name}(): Expected reduction dim to be specified for input.numel() == 0."


SPECIFY_DIM = " Specify the reduction dim with the 'dim' argument."
STD_VAR_NOT_FLOAT = "std and var only support floating point and complex dtypes"
DOF_NOT_POSITIVE = (
    "{}(): degrees of freedom is <= 0. Correction should be strictly less than the reduction "
    "factor (input numel divided by output numel)."
)


def type_name(value):
    """A value's type as PyTorch's C++ code names it (`int`, `Tensor`, `numpy.ndarray`)."""
    from ._cnames import c_name

    return c_name(type(value))


def arg_type(fn, name, position, expected, value):
    """PyTorch's argument parser's text for an argument of the wrong type."""
    got = type_name(value)
    return f"{fn}(): argument '{name}' (position {position}) must be {expected}, not {got}"


HOOK_NO_GRAD = "cannot register a hook on a tensor that doesn't require gradient"
HOOK_NOT_TENSOR = "expected Variable, but hook returned '{}'"
HOOK_CHANGED_TYPE = "hook '{}' has changed the type of value (was {} got {})"
HOOK_CHANGED_SIZE = "hook '{}' has changed the size of value"


VECTOR_NORM_NOT_FLOAT = (
    "linalg.vector_norm: Expected a floating point or complex tensor as input. Got {}"
)
VECTOR_NORM_INF_EMPTY = (
    "linalg.vector_norm cannot compute the inf norm on an empty tensor because the operation "
    "does not have an identity"
)
REPEAT_TOO_FEW_DIMS = (
    "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor"
)
OUT_REQUIRES_GRAD = (
    "{}(): functions with out=... arguments don't support automatic differentiation, but one "
    "of the arguments requires grad."
)
OUT_CANNOT_CAST = "result type {} can't be cast to the desired output type {}"


def out_resized(had, required):
    return (
        f"An output with one or more elements was resized since it had shape {list(had)}, which "
        f"does not match the required output shape {list(required)}. This behavior is "
        "deprecated, and in a future PyTorch release outputs will not be resized unless they "
        "have zero elements. You can explicitly reuse an out tensor t by resizing it, inplace, "
        "to zero elements with t.resize_(0)."
    )


SOFTMAX_IMPLICIT_DIM = (
    "Implicit dimension choice for {} has been deprecated. Change the call to include "
    "dim=X as an argument."
)
NO_ACCELERATOR = "Cannot access accelerator device when none is available."
INVALID_DEVICE_STRING = "Invalid device string: '{}'"
DTYPE_ARGUMENT = "{}(): argument 'dtype' must be " + LIB + ".dtype, not {}"
UNKNOWN_DEVICE_TYPE = (  # every device type PyTorch knows, though minigrad has two of them
    "Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, "
    "xla, lazy, vulkan, mps, meta, hpu, mtia, privateuseone device type at start of device "
    "string: {}"
)
NEGATIVE_DEVICE_INDEX = "Device index must not be negative"
TYPE_ARGUMENT = "dtype must be a type, str, or dtype object"
DELETE_DATA = "Deleting tensor data is not allowed. Delete tensor instead!"
NOT_A_MODULE = "{} is not a Module subclass"
RANDINT_FROM_TO = "random_ expects 'from' to be less than 'to', but got from={} >= to={}"


def batch2_size(batch, k, rows):
    return (
        f"Expected size for first two dimensions of batch2 tensor to be: [{batch}, {k}] but "
        f"got: [{batch}, {rows}]."
    )


# -- custom autograd.Function (minigrad/autograd/function.py) ---------------------------------
CUSTOM_VIEW_INPLACE = (
    " This view was created inside a custom Function (or because an input was returned as-is) "
    "and the autograd logic to handle view+inplace would override the custom backward associated "
    "with the custom Function, leading to incorrect gradients. This behavior is forbidden. You "
    "can fix this by cloning the output of the custom Function."
)
FUNCTION_NO_FORWARD = "You must implement the forward function for custom autograd.Function."
FUNCTION_NO_BACKWARD = (
    "You must implement either the backward or vjp method for your custom autograd.Function to "
    "use it with backward mode AD."
)
FUNCTION_LEGACY_CALL = (
    "Legacy autograd function with non-static forward method is deprecated. Please use "
    "new-style autograd function with static forward method. (Example: "
    "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)"
)
FUNCTION_INSTANTIATED = (
    "{} should not be instantiated. Methods on autograd functions are all static, so you should "
    "invoke them on the class itself. Instantiating an autograd function will raise an error in "
    "a future version of PyTorch."
)
FUNCTION_GRAD_COUNT = "function {} returned an incorrect number of gradients (expected {}, got {})"
FUNCTION_GRAD_FOR_NON_TENSOR = (
    "function {} returned a gradient different than None at position {}, but the corresponding "
    "forward input was not a Variable"
)
FUNCTION_GRAD_NOT_TENSOR = "expected Variable or None (got {})"
FUNCTION_GRAD_SHAPE = (
    "Function {} returned an invalid gradient at index {} - got {} but expected shape compatible "
    "with {}"
)
SAVE_FOR_BACKWARD_TYPE = "save_for_backward can only save variables, but argument {} is of type {}"
DIRTY_LEAF = "a leaf Variable that requires grad has been used in an in-place operation."
DIRTY_NOT_RETURNED = (
    "Some elements marked as dirty during the forward method were not returned as output. The "
    "inputs that are modified inplace must all be outputs of the Function."
)

# -- nn.Module: buffers, child modules, load_state_dict (minigrad/nn/modules.py) -------------
CHILD_MODULE_TYPE = (
    "cannot assign '{}' as child module '{}' (" + LIB + ".nn.Module or None expected)"
)
BUFFER_ASSIGN_TYPE = (
    "cannot assign '{}' as buffer '{}' (" + LIB + ".nn.Buffer, " + LIB + ".Tensor or None expected)"
)
# PyTorch's own words ("torch Tensor", no dot): kept as they are
BUFFER_TYPE = "cannot assign '{}' object to buffer '{}' (torch Tensor or None required)"
BUFFER_NAME_TYPE = "buffer name should be a string. Got {}"
BUFFER_NAME_DOT = 'buffer name can\'t contain "."'
BUFFER_NAME_EMPTY = 'buffer name can\'t be empty string ""'
ATTRIBUTE_EXISTS = "attribute '{}' already exists"
MODULE_LIST_EXTEND = "ModuleList.extend should be called with an iterable, but got {}"
STATE_DICT_TYPE = "Expected state_dict to be dict-like, got {}."
MISSING_KEYS = "Missing key(s) in state_dict: {}. "
UNEXPECTED_KEYS = "Unexpected key(s) in state_dict: {}. "
LOAD_STATE_DICT = "Error(s) in loading state_dict for {}:\n\t{}"
LOAD_NOT_TENSOR = (
    'While copying the parameter named "{}", expected ' + LIB + ".Tensor or Tensor-like object "
    "from checkpoint but received {}"
)
LOAD_SIZE_MISMATCH = (
    "size mismatch for {}: copying a param with shape {} from checkpoint, the shape in current "
    "model is {}."
)

# -- binary_cross_entropy_with_logits (minigrad/nn/logits_loss.py) ---------------------------
BCE_TARGET_SIZE = "Target size ({}) must be the same as input size ({})"
NOT_DIFFERENTIABLE = (
    "The function 'binary_cross_entropy_with_logits' is not differentiable with respect to "
    "argument '{}'. This input cannot have requires_grad True."
)

# -- Optimizer.load_state_dict (minigrad/optim.py) ------------------------------------------
OPTIMIZER_LOAD_GROUPS = "loaded state dict has a different number of parameter groups"
OPTIMIZER_LOAD_GROUP_SIZE = (
    "loaded state dict contains a parameter group that doesn't match the size of optimizer's group"
)

# -- utils.data (minigrad/utils/data.py) ---------------------------------------------------
DATASET_SIZE_MISMATCH = "Size mismatch between tensors"
BATCH_SIZE = "batch_size should be a positive integer value, but got batch_size={}"


# gather, scatter, index_add and one_hot
INDEX_DIMS = "Index tensor must have the same number of dimensions as {} tensor"
INDEX_INT_DTYPE = "{}(): Expected dtype int32/int64 for index"
SCATTER_DTYPES = "scatter(): Expected self.dtype to be equal to src.dtype"
INDEX_ADD_NOT_VECTOR = (
    "index_add_(): Index is supposed to be a vector, but got dim: {} with type: {} and size: {}"
)
INDEX_ADD_COUNT = (
    "index_add_(): Number of indices ({}) should be equal to source.size(dim): ({}), for dim: {}"
)
INDEX_ADD_DTYPES = "index_add_(): self ({}) and source ({}) must have the same scalar type"
INDEX_ADD_SHAPES = (
    "source tensor shape must match self tensor shape, excluding the specified dimension. "
    "Got self.shape = {} source.shape = {}"
)
INDEX_OUT_OF_RANGE = "index out of range in self"
ONE_HOT_DTYPE = "one_hot is only applicable to index tensor of type LongTensor."
ONE_HOT_EMPTY = "Can not infer total number of classes from empty tensor."
ONE_HOT_NEGATIVE = "Class values must be non-negative."
ONE_HOT_TOO_BIG = "Class values must be smaller than num_classes."


def gather_sizes(d, index_shape, self_shape, dim):
    return (
        f"Size does not match at dimension {d} expected index {list(index_shape)} to be no "
        f"larger than self {list(self_shape)} apart from dimension {dim}"
    )


def scatter_sizes(index_shape, self_shape, dim, src_shape=None):
    text = (
        f"Expected index {list(index_shape)} to be no larger than self {list(self_shape)} "
        f"apart from dimension {dim}"
    )
    if src_shape is not None:
        text += f" and to be no larger size than src {list(src_shape)}"
    return text


def index_bounds(value, dim, size):
    return f"index {value} is out of bounds for dimension {dim} with size {size}"
