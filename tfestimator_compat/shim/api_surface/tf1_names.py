"""TF1 names: those TensorFlow >= 2.16 lost, and those only `tf.compat.v1` still has."""

from typing import Dict

from tfestimator_compat.shim.api_surface.symbol import NOT_SUPPORTED
from tfestimator_compat.shim.api_surface.symbol import SUPPORTED

# --- tf.compat.v1 names TensorFlow >= 2.16 lost or that fail with Keras 3 --------------------
TF1_LAYER_CLASSES = {
    "average_pooling1d": "AveragePooling1D",
    "average_pooling2d": "AveragePooling2D",
    "average_pooling3d": "AveragePooling3D",
    "batch_normalization": "BatchNormalization",
    "conv1d": "Conv1D",
    "conv2d": "Conv2D",
    "conv2d_transpose": "Conv2DTranspose",
    "conv3d": "Conv3D",
    "conv3d_transpose": "Conv3DTranspose",
    "dense": "Dense",
    "dropout": "Dropout",
    "flatten": "Flatten",
    "max_pooling1d": "MaxPooling1D",
    "max_pooling2d": "MaxPooling2D",
    "max_pooling3d": "MaxPooling3D",
    "separable_conv1d": "SeparableConv1D",
    "separable_conv2d": "SeparableConv2D",
}
TF1_LOST = {
    "layers": (
        SUPPORTED,
        "tf1-layers",
        "keras.layers (dense -> Dense, conv2d -> Conv2D, ...; pass training= explicitly)",
    ),
    "layers.experimental": (
        SUPPORTED,
        "tf1-layers",
        "keras.layers (every Keras layer owns its variables, as Keras-style TF1 layers did)",
    ),
    "nn.rnn_cell": (
        NOT_SUPPORTED,
        "tf1-rnn-cells",
        "gone with Keras 3; keras.layers.LSTMCell/GRUCell/SimpleRNNCell in keras.layers.RNN "
        "(MultiRNNCell -> StackedRNNCells)",
    ),
    "data.experimental.CheckpointInputPipelineHook": (
        NOT_SUPPORTED,
        "input-pipeline-checkpoints",
        "removed in TF 2.16; tf.train.Checkpoint(iterator=iterator) saved with the model",
    ),
}
for _name, _native in (
    ("AdagradParameters", "Adagrad"),
    ("AdamParameters", "Adam"),
    ("FtrlParameters", "FTRL"),
    ("StochasticGradientDescentParameters", "SGD"),
):
    TF1_LOST[f"tpu.experimental.{_name}"] = (
        NOT_SUPPORTED,
        "tpu-embeddings",
        f"removed in TF 2.16; tf.tpu.experimental.embedding.{_native}",
    )

# --- TF1-only names under a plain `import tensorflow as tf` ----------------------------------
# Every public name of tf.compat.v1 in TF 2.15 that `tf` in TF 2.21 lacks (a module stands for
# everything in it). `name=path` gives the TF2 name of the same function (`tf.<path>`).
TF1_ONLY_TEXT = """
AUTO_REUSE AttrValue COMPILER_VERSION CXX11_ABI_FLAG CXX_VERSION ConditionalAccumulator
ConditionalAccumulatorBase ConfigProto Dimension Event FIFOQueue=queue.FIFOQueue
FixedLenFeature=io.FixedLenFeature FixedLenSequenceFeature=io.FixedLenSequenceFeature
FixedLengthRecordReader GIT_VERSION GPUOptions GRAPH_DEF_VERSION
GRAPH_DEF_VERSION_MIN_CONSUMER GRAPH_DEF_VERSION_MIN_PRODUCER GraphDef GraphKeys
GraphOptions HistogramProto IdentityReader InteractiveSession LMDBReader LogMessage
MONOLITHIC_BUILD MetaGraphDef NameAttrList NoGradient=no_gradient NodeDef
NotDifferentiable=no_gradient OpError=errors.OpError OptimizerOptions
PaddingFIFOQueue=queue.PaddingFIFOQueue Print PriorityQueue=queue.PriorityQueue
QUANTIZED_DTYPES QueueBase=queue.QueueBase RandomShuffleQueue=queue.RandomShuffleQueue
ReaderBase RunMetadata RunOptions Session SessionLog SparseConditionalAccumulator
SparseFeature=io.SparseFeature SparseTensorValue Summary SummaryMetadata TFRecordReader
TensorInfo TextLineReader VERSION VarLenFeature=io.VarLenFeature VariableScope
WholeFileReader accumulate_n=math.accumulate_n add_check_numerics_ops add_to_collection
add_to_collections all_variables angle=math.angle app arg_max arg_min assert_greater_equal
assert_integer assert_less_equal assert_near assert_negative assert_non_negative
assert_non_positive assert_none_equal assert_positive
assert_proper_iterable=debugging.assert_proper_iterable assert_rank_at_least assert_rank_in
assert_same_float_dtype=debugging.assert_same_float_dtype assert_scalar assert_type
assert_variables_initialized assign assign_add assign_sub batch_gather batch_scatter_update
batch_to_space_nd betainc=math.betainc bincount ceil=math.ceil
check_numerics=debugging.check_numerics cholesky=linalg.cholesky
cholesky_solve=linalg.cholesky_solve clip_by_average_norm colocate_with confusion_matrix
conj=math.conj container control_flow_v2_enabled convert_to_tensor_or_indexed_slices
convert_to_tensor_or_sparse_tensor count_nonzero count_up_to create_partitioned_variables
cross=linalg.cross cumprod=math.cumprod data.experimental.CheckpointInputPipelineHook
data.experimental.DatasetStructure=data.DatasetSpec
data.experimental.OptionalStructure=OptionalSpec data.experimental.RaggedTensorStructure
data.experimental.SparseTensorStructure data.experimental.Structure=TypeSpec
data.experimental.TensorArrayStructure data.experimental.TensorStructure
data.experimental.map_and_batch_with_legacy_function data.get_output_classes
data.get_output_shapes data.get_output_types data.make_initializable_iterator
data.make_one_shot_iterator debugging.is_finite=math.is_finite debugging.is_inf=math.is_inf
debugging.is_nan=math.is_nan debugging.is_non_decreasing=math.is_non_decreasing
debugging.is_strictly_increasing=math.is_strictly_increasing decode_base64=io.decode_base64
decode_compressed=io.decode_compressed decode_csv decode_json_example=io.decode_json_example
decode_raw delete_session_tensor depth_to_space dequantize=quantization.dequantize
deserialize_many_sparse=io.deserialize_many_sparse diag=linalg.tensor_diag
diag_part=linalg.tensor_diag_part digamma=math.digamma dimension_at_index dimension_value
disable_control_flow_v2 disable_eager_execution disable_resource_variables
disable_tensor_equality disable_v2_behavior disable_v2_tensorshape
distribute.get_loss_reduction distributions div div_no_nan=math.divide_no_nan
dtypes.as_string=as_string enable_control_flow_v2 enable_eager_execution
enable_resource_variables enable_tensor_equality enable_v2_behavior enable_v2_tensorshape
encode_base64=io.encode_base64 erf=math.erf erfc=math.erfc
errors.error_code_from_exception_type errors.exception_type_from_error_code
errors.raise_exception_on_not_ok_status executing_eagerly_outside_functions expm1=math.expm1
extract_image_patches fake_quant_with_min_max_args=quantization.fake_quant_with_min_max_args
fake_quant_with_min_max_args_gradient=quantization.fake_quant_with_min_max_args_gradient
fake_quant_with_min_max_vars=quantization.fake_quant_with_min_max_vars
fake_quant_with_min_max_vars_gradient=quantization.fake_quant_with_min_max_vars_gradient
fake_quant_with_min_max_vars_per_channel=quantization.fake_quant_with_min_max_vars_per_channel
fake_quant_with_min_max_vars_per_channel_gradient=quantization.fake_quant_with_min_max_vars_per_channel_gradient
feature_column.input_layer feature_column.linear_model
feature_column.shared_embedding_columns fft=signal.fft fft2d=signal.fft2d fft3d=signal.fft3d
fixed_size_partitioner flags floor_div floordiv=math.floordiv floormod=math.mod
get_collection get_collection_ref get_default_graph get_default_session get_local_variable
get_seed get_session_handle get_session_tensor get_variable get_variable_scope gfile
global_norm=linalg.global_norm global_variables global_variables_initializer
glorot_normal_initializer glorot_uniform_initializer
graph_util.convert_variables_to_constants graph_util.extract_sub_graph
graph_util.must_run_on_cpu graph_util.remove_training_nodes
graph_util.tensor_shape_from_node_def_name ifft=signal.ifft ifft2d=signal.ifft2d
ifft3d=signal.ifft3d igamma=math.igamma igammac=math.igammac imag=math.imag
image.extract_image_patches image.resize_area image.resize_bicubic image.resize_bilinear
image.resize_image_with_crop_or_pad=image.resize_with_crop_or_pad
image.resize_image_with_pad image.resize_images image.resize_nearest_neighbor
image.transpose_image=image.transpose initialize_all_tables initialize_all_variables
initialize_local_variables initialize_variables initializers.global_variables
initializers.local_variables initializers.tables_initializer
initializers.uniform_unit_scaling initializers.variables
invert_permutation=math.invert_permutation io.PaddingFIFOQueue=queue.PaddingFIFOQueue
io.PriorityQueue=queue.PriorityQueue io.QueueBase=queue.QueueBase
io.RandomShuffleQueue=queue.RandomShuffleQueue io.TFRecordCompressionType
io.tf_record_iterator is_finite=math.is_finite is_inf=math.is_inf is_nan=math.is_nan
is_non_decreasing=math.is_non_decreasing is_numeric_tensor=debugging.is_numeric_tensor
is_strictly_increasing=math.is_strictly_increasing is_variable_initialized layers
lbeta=math.lbeta lgamma=math.lgamma lin_space=linspace linalg.transpose lite.OpHint
lite.TocoConverter lite.constants lite.experimental.convert_op_hints_to_stubs
lite.toco_convert load_file_system_library local_variables local_variables_initializer
log=math.log log1p=math.log1p log_sigmoid=math.log_sigmoid logging
logical_xor=math.logical_xor losses.absolute_difference losses.add_loss
losses.compute_weighted_loss losses.cosine_distance losses.get_losses
losses.get_regularization_loss losses.get_regularization_losses losses.get_total_loss
losses.hinge_loss losses.huber_loss losses.log_loss losses.mean_pairwise_squared_error
losses.mean_squared_error losses.sigmoid_cross_entropy losses.softmax_cross_entropy
losses.sparse_softmax_cross_entropy make_template manip matching_files=io.matching_files
matrix_band_part=linalg.band_part matrix_determinant=linalg.det matrix_diag=linalg.diag
matrix_diag_part=linalg.diag_part matrix_inverse=linalg.inv matrix_set_diag=linalg.set_diag
matrix_solve=linalg.solve matrix_solve_ls=linalg.lstsq
matrix_transpose=linalg.matrix_transpose matrix_triangular_solve=linalg.triangular_solve
metrics.accuracy metrics.auc metrics.average_precision_at_k metrics.false_negatives
metrics.false_negatives_at_thresholds metrics.false_positives
metrics.false_positives_at_thresholds metrics.mean metrics.mean_absolute_error
metrics.mean_cosine_distance metrics.mean_iou metrics.mean_per_class_accuracy
metrics.mean_relative_error metrics.mean_squared_error metrics.mean_tensor
metrics.percentage_below metrics.precision metrics.precision_at_k
metrics.precision_at_thresholds metrics.precision_at_top_k metrics.recall
metrics.recall_at_k metrics.recall_at_thresholds metrics.recall_at_top_k
metrics.root_mean_squared_error metrics.sensitivity_at_specificity
metrics.sparse_average_precision_at_k metrics.sparse_precision_at_k
metrics.specificity_at_sensitivity metrics.true_negatives
metrics.true_negatives_at_thresholds metrics.true_positives
metrics.true_positives_at_thresholds min_max_variable_partitioner mixed_precision
mod=math.mod model_variables moving_average_variables multinomial nn.avg_pool_v2=nn.avg_pool
nn.bidirectional_dynamic_rnn nn.conv2d_backprop_filter nn.conv2d_backprop_input
nn.conv3d_backprop_filter nn.conv3d_backprop_filter_v2
nn.ctc_beam_search_decoder_v2=nn.ctc_beam_search_decoder nn.ctc_loss_v2
nn.depthwise_conv2d_native
nn.depthwise_conv2d_native_backprop_filter=nn.depthwise_conv2d_backprop_filter
nn.depthwise_conv2d_native_backprop_input=nn.depthwise_conv2d_backprop_input nn.dynamic_rnn
nn.fused_batch_norm nn.log_uniform_candidate_sampler=random.log_uniform_candidate_sampler
nn.max_pool_v2=nn.max_pool nn.quantized_avg_pool nn.quantized_conv2d nn.quantized_max_pool
nn.quantized_relu_x nn.raw_rnn nn.relu_layer nn.rnn_cell
nn.softmax_cross_entropy_with_logits_v2 nn.static_bidirectional_rnn nn.static_rnn
nn.static_state_saving_rnn nn.uniform_candidate_sampler=random.uniform_candidate_sampler
nn.xw_plus_b no_regularizer op_scope orthogonal_initializer parse_example
parse_single_example parse_single_sequence_example=io.parse_single_sequence_example
parse_tensor=io.parse_tensor placeholder placeholder_with_default polygamma=math.polygamma
profiler.AdviceProto profiler.GraphNodeProto profiler.MultiGraphNodeProto
profiler.OpLogProto profiler.ProfileOptionBuilder profiler.Profiler profiler.advise
profiler.profile profiler.write_op_log py_func python_io qr=linalg.qr
quantize=quantization.quantize quantize_v2 quantized_concat=quantization.quantized_concat
ragged.RaggedTensorValue ragged.constant_value ragged.placeholder random.get_seed
random.multinomial random.set_random_seed random.stateless_multinomial
random_crop=image.random_crop random_gamma=random.gamma random_normal=random.normal
random_poisson random_shuffle=random.shuffle random_uniform=random.uniform
read_file=io.read_file real=math.real reciprocal=math.reciprocal reduce_join
regex_replace=strings.regex_replace report_uninitialized_variables reset_default_graph
resource_loader resource_variables_enabled reverse_v2=reverse rint=math.rint
rsqrt=math.rsqrt saved_model.Builder saved_model.LEGACY_INIT_OP_KEY saved_model.MAIN_OP_KEY
saved_model.build_signature_def saved_model.build_tensor_info saved_model.builder
saved_model.classification_signature_def saved_model.constants
saved_model.experimental.save=saved_model.save saved_model.get_tensor_from_tensor_info
saved_model.is_valid_signature saved_model.load_v2=saved_model.load saved_model.loader
saved_model.main_op saved_model.main_op_with_restore saved_model.maybe_saved_model_directory
saved_model.predict_signature_def saved_model.regression_signature_def
saved_model.signature_constants saved_model.signature_def_utils saved_model.simple_save
saved_model.tag_constants saved_model.utils scatter_add scatter_div scatter_max scatter_min
scatter_mul scatter_nd_add scatter_nd_sub scatter_nd_update scatter_sub scatter_update
segment_max=math.segment_max segment_mean=math.segment_mean segment_min=math.segment_min
segment_prod=math.segment_prod segment_sum=math.segment_sum self_adjoint_eig=linalg.eigh
self_adjoint_eigvals=linalg.eigvalsh serialize_many_sparse serialize_sparse
serialize_tensor=io.serialize_tensor set_random_seed setdiff1d
sets.set_difference=sets.difference sets.set_intersection=sets.intersection
sets.set_size=sets.size sets.set_union=sets.union space_to_depth
sparse.SparseConditionalAccumulator sparse.matmul=sparse.sparse_dense_matmul sparse.merge
sparse.placeholder sparse.reduce_max_sparse sparse.reduce_sum_sparse sparse_add
sparse_concat sparse_fill_empty_rows=sparse.fill_empty_rows sparse_mask=sparse.mask
sparse_matmul sparse_maximum=sparse.maximum sparse_merge sparse_minimum=sparse.minimum
sparse_placeholder sparse_reduce_max sparse_reduce_max_sparse sparse_reduce_sum
sparse_reduce_sum_sparse sparse_reorder=sparse.reorder sparse_reset_shape=sparse.reset_shape
sparse_reshape=sparse.reshape sparse_retain=sparse.retain sparse_segment_mean
sparse_segment_sqrt_n sparse_segment_sum sparse_slice=sparse.slice
sparse_softmax=sparse.softmax sparse_split
sparse_tensor_dense_matmul=sparse.sparse_dense_matmul sparse_tensor_to_dense=sparse.to_dense
sparse_to_dense sparse_to_indicator=sparse.to_indicator sparse_transpose=sparse.transpose
spectral squared_difference=math.squared_difference string_join=strings.join string_split
string_strip=strings.strip string_to_hash_bucket
string_to_hash_bucket_fast=strings.to_hash_bucket_fast
string_to_hash_bucket_strong=strings.to_hash_bucket_strong string_to_number substr
summary.Event summary.FileWriter summary.FileWriterCache summary.SessionLog summary.Summary
summary.SummaryDescription summary.TaggedRunMetadata summary.all_v2_summary_ops
summary.get_summary_description summary.initialize summary.merge summary.merge_all
summary.tensor_summary svd=linalg.svd tables_initializer
tensor_scatter_add=tensor_scatter_nd_add tensor_scatter_sub=tensor_scatter_nd_sub
tensor_scatter_update=tensor_scatter_nd_update test.StubOutForTesting
test.compute_gradient_error test.get_temp_dir test.mock test.test_src_dir_path to_bfloat16
to_complex128 to_complex64 to_double to_float to_int32 to_int64 tpu.CrossShardOptimizer
tpu.PaddingSpec tpu.batch_parallel tpu.bfloat16_scope tpu.core tpu.cross_replica_sum
tpu.experimental.AdagradParameters tpu.experimental.AdamParameters
tpu.experimental.FtrlParameters tpu.experimental.StochasticGradientDescentParameters
tpu.experimental.embedding_column tpu.experimental.shared_embedding_columns
tpu.initialize_system tpu.outside_compilation tpu.replicate tpu.rewrite tpu.shard
tpu.shutdown_system trace=linalg.trace train.AdadeltaOptimizer train.AdagradDAOptimizer
train.AdagradOptimizer train.AdamOptimizer train.CheckpointSaverHook
train.CheckpointSaverListener train.ChiefSessionCreator train.FeedFnHook train.FinalOpsHook
train.FtrlOptimizer train.GlobalStepWaiterHook train.GradientDescentOptimizer
train.LoggingTensorHook train.LooperThread train.MomentumOptimizer train.MonitoredSession
train.MonitoredTrainingSession train.NanLossDuringTrainingError train.NanTensorHook
train.NewCheckpointReader train.Optimizer train.ProfilerHook train.ProximalAdagradOptimizer
train.ProximalGradientDescentOptimizer train.QueueRunner train.RMSPropOptimizer train.Saver
train.SaverDef train.Scaffold train.SecondOrStepTimer train.Server=distribute.Server
train.SessionCreator train.SessionManager train.SessionRunArgs train.SessionRunContext
train.SessionRunHook train.SessionRunValues train.SingularMonitoredSession
train.StepCounterHook train.StopAtStepHook train.SummarySaverHook train.Supervisor
train.SyncReplicasOptimizer train.VocabInfo train.WorkerSessionCreator
train.add_queue_runner train.assert_global_step train.basic_train_loop train.batch
train.batch_join train.checkpoint_exists train.cosine_decay train.cosine_decay_restarts
train.create_global_step train.do_quantize_training_on_graphdef
train.experimental.DynamicLossScale train.experimental.FixedLossScale
train.experimental.LossScale train.experimental.MixedPrecisionLossScaleOptimizer
train.experimental.disable_mixed_precision_graph_rewrite
train.experimental.enable_mixed_precision_graph_rewrite train.exponential_decay
train.export_meta_graph train.generate_checkpoint_state_proto train.get_checkpoint_mtimes
train.get_global_step train.get_or_create_global_step train.global_step
train.import_meta_graph train.init_from_checkpoint train.input_producer
train.inverse_time_decay train.limit_epochs train.linear_cosine_decay
train.match_filenames_once=io.match_filenames_once train.maybe_batch train.maybe_batch_join
train.maybe_shuffle_batch train.maybe_shuffle_batch_join train.natural_exp_decay
train.noisy_linear_cosine_decay train.piecewise_constant train.piecewise_constant_decay
train.polynomial_decay train.queue_runner train.range_input_producer train.remove_checkpoint
train.replica_device_setter train.sdca_fprint train.sdca_optimizer train.sdca_shrink_l1
train.shuffle_batch train.shuffle_batch_join train.slice_input_producer
train.start_queue_runners train.string_input_producer train.summary_iterator
train.update_checkpoint_state train.warm_start train.write_graph=io.write_graph
trainable_variables truncated_normal=random.truncated_normal truncated_normal_initializer
uniform_unit_scaling_initializer unsorted_segment_max=math.unsorted_segment_max
unsorted_segment_mean=math.unsorted_segment_mean
unsorted_segment_min=math.unsorted_segment_min
unsorted_segment_prod=math.unsorted_segment_prod
unsorted_segment_sqrt_n=math.unsorted_segment_sqrt_n
unsorted_segment_sum=math.unsorted_segment_sum user_ops variable_axis_size_partitioner
variable_op_scope variable_scope variables_initializer variance_scaling_initializer
verify_tensor_all_finite where_v2=where wrap_function write_file=io.write_file
zeta=math.zeta
"""

# Native replacements for the TF1 names programs use most; longest prefix wins.
TF1_NATIVE = {
    "placeholder": "keras.Input, or a tf.function input_signature",
    "placeholder_with_default": "a Python default argument of a tf.function",
    "sparse_placeholder": "a tf.SparseTensorSpec in a tf.function input_signature",
    "Session": "eager execution, or a tf.function",
    "InteractiveSession": "eager execution",
    "get_default_session": "eager execution",
    "ConfigProto": "tf.config (e.g. tf.config.experimental.set_memory_growth)",
    "GPUOptions": "tf.config (e.g. tf.config.experimental.set_memory_growth)",
    "app": "absl.app",
    "app.flags": "absl.flags",
    "flags": "absl.flags",
    "logging": "absl.logging, or Python's logging",
    "gfile": "tf.io.gfile",
    "python_io": "tf.io.TFRecordWriter, tf.data.TFRecordDataset",
    "layers": "keras.layers",
    "get_variable": "tf.Variable, or Layer.add_weight",
    "get_local_variable": "tf.Variable(trainable=False)",
    "variable_scope": "keras layers own their variables; tf.name_scope for names",
    "get_variable_scope": "keras layers own their variables",
    "VariableScope": "keras layers own their variables",
    "AUTO_REUSE": "reuse the layer object",
    "make_template": "a keras.layers.Layer",
    "global_variables_initializer": "nothing: eager variables are initialized when created",
    "local_variables_initializer": "nothing: eager variables are initialized when created",
    "tables_initializer": "nothing: eager tables are initialized when created",
    "initialize_all_variables": "nothing: eager variables are initialized when created",
    "global_variables": "model.variables",
    "trainable_variables": "model.trainable_variables",
    "local_variables": "metric.variables",
    "get_collection": "track objects in Python (model.losses, model.variables)",
    "add_to_collection": "track objects in Python",
    "GraphKeys": "track objects in Python (model.losses, model.variables)",
    "reset_default_graph": "nothing in eager mode",
    "get_default_graph": "nothing in eager mode; tf.Graph() where a graph is needed",
    "set_random_seed": "tf.random.set_seed or keras.utils.set_random_seed",
    "random_normal": "tf.random.normal",
    "random_uniform": "tf.random.uniform",
    "truncated_normal": "tf.random.truncated_normal",
    "to_float": "tf.cast(x, tf.float32)",
    "to_double": "tf.cast(x, tf.float64)",
    "to_int32": "tf.cast(x, tf.int32)",
    "to_int64": "tf.cast(x, tf.int64)",
    "Print": "tf.print",
    "py_func": "tf.numpy_function or tf.py_function",
    "parse_example": "tf.io.parse_example",
    "parse_single_example": "tf.io.parse_single_example",
    "decode_raw": "tf.io.decode_raw",
    "decode_csv": "tf.io.decode_csv",
    "VERSION": "tf.version.VERSION",
    "disable_v2_behavior": "nothing: write TF2 code, or run the program with `run --tf1`",
    "disable_eager_execution": "nothing: write TF2 code, or run the program with `run --tf1`",
    "enable_eager_execution": "nothing: eager execution is the default",
    "data.make_one_shot_iterator": "iter(dataset), or a for loop over the dataset",
    "data.make_initializable_iterator": "iter(dataset), or a for loop over the dataset",
    "train.AdadeltaOptimizer": "keras.optimizers.Adadelta",
    "train.AdagradOptimizer": "keras.optimizers.Adagrad",
    "train.AdamOptimizer": "keras.optimizers.Adam",
    "train.FtrlOptimizer": "keras.optimizers.Ftrl",
    "train.GradientDescentOptimizer": "keras.optimizers.SGD",
    "train.MomentumOptimizer": "keras.optimizers.SGD(momentum=...)",
    "train.RMSPropOptimizer": "keras.optimizers.RMSprop",
    "train.Optimizer": "keras.optimizers.Optimizer",
    "train.get_global_step": "optimizer.iterations",
    "train.get_or_create_global_step": "optimizer.iterations",
    "train.create_global_step": "optimizer.iterations",
    "train.Saver": "tf.train.Checkpoint and tf.train.CheckpointManager",
    "train.init_from_checkpoint": "tf.train.Checkpoint(...).restore(path)",
    "train.exponential_decay": "keras.optimizers.schedules.ExponentialDecay",
    "train.piecewise_constant": "keras.optimizers.schedules.PiecewiseConstantDecay",
    "train.polynomial_decay": "keras.optimizers.schedules.PolynomialDecay",
    "train.cosine_decay": "keras.optimizers.schedules.CosineDecay",
    "train.inverse_time_decay": "keras.optimizers.schedules.InverseTimeDecay",
    "train.MonitoredTrainingSession": "model.fit, or a loop over a tf.function step",
    "train.MonitoredSession": "model.fit, or a loop over a tf.function step",
    "train.SingularMonitoredSession": "model.fit, or a loop over a tf.function step",
    "train.Scaffold": "model.fit with callbacks",
    "train.SessionRunHook": "keras.callbacks.Callback",
    "train.batch": "tf.data.Dataset.batch",
    "train.shuffle_batch": "tf.data.Dataset.shuffle(...).batch(...)",
    "train.string_input_producer": "tf.data.Dataset.from_tensor_slices(filenames)",
    "train.start_queue_runners": "nothing: tf.data needs no queue runners",
    "metrics.accuracy": "keras.metrics.Accuracy",
    "metrics.auc": "keras.metrics.AUC",
    "metrics.mean": "keras.metrics.Mean",
    "metrics.precision": "keras.metrics.Precision",
    "metrics.recall": "keras.metrics.Recall",
    "metrics.mean_squared_error": "keras.metrics.MeanSquaredError",
    "metrics.root_mean_squared_error": "keras.metrics.RootMeanSquaredError",
    "metrics.mean_absolute_error": "keras.metrics.MeanAbsoluteError",
    "metrics.mean_iou": "keras.metrics.MeanIoU",
    "metrics.true_positives": "keras.metrics.TruePositives",
    "metrics.false_positives": "keras.metrics.FalsePositives",
    "metrics.true_negatives": "keras.metrics.TrueNegatives",
    "metrics.false_negatives": "keras.metrics.FalseNegatives",
    "losses.sparse_softmax_cross_entropy": "keras.losses.SparseCategoricalCrossentropy"
    "(from_logits=True)",
    "losses.softmax_cross_entropy": "keras.losses.CategoricalCrossentropy(from_logits=True)",
    "losses.sigmoid_cross_entropy": "keras.losses.BinaryCrossentropy(from_logits=True)",
    "losses.log_loss": "keras.losses.BinaryCrossentropy",
    "losses.mean_squared_error": "keras.losses.MeanSquaredError",
    "losses.absolute_difference": "keras.losses.MeanAbsoluteError",
    "losses.huber_loss": "keras.losses.Huber",
    "losses.hinge_loss": "keras.losses.Hinge",
    "losses.get_regularization_loss": "tf.add_n(model.losses)",
    "losses.get_total_loss": "the loss compile() computes, plus model.losses",
    "summary.FileWriter": "tf.summary.create_file_writer",
    "summary.merge_all": "nothing: TF2 summaries are written when called",
    "saved_model.simple_save": "tf.saved_model.save",
    "saved_model.loader": "tf.saved_model.load",
    "saved_model.load": "tf.saved_model.load",
    "saved_model.builder": "tf.saved_model.save",
    "saved_model.Builder": "tf.saved_model.save",
    "test.get_temp_dir": "tf.test.TestCase.get_temp_dir, or tempfile",
}


def _parse_tf1_only(text: str) -> Dict[str, str]:
    names = {}
    for token in text.split():
        name, _, native = token.partition("=")
        names[name] = f"tf.{native}" if native else ""
    return names


TF1_ONLY_NAMES: Dict[str, str] = _parse_tf1_only(TF1_ONLY_TEXT)
"""TF1-only name (relative to `tf`) -> TF2 name of the same function, or ""."""
