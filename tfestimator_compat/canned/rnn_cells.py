"""The recurrent layer of the RNN estimators: Keras 2's cells, in plain TensorFlow ops.

The original ran Keras 2's `SimpleRNN` / `LSTM` / `GRU` layers, or
`keras.layers.RNN` over the cells an `rnn_cell_fn` returned. Keras 3 cells
cannot be built inside the estimator's TF1 graph under the original's
variable names, so the cells are described here (`CellSpec`: kind, units,
activations, initializers, dropout) and run with the original's maths:

- `SimpleRNNCell`: `h = activation(x W + b + h' U)`;
- `LSTMCell`: gates `i, f, c, o` side by side in one kernel, `sigmoid`
  recurrent activation, the forget gate's bias starting at one;
- `GRUCell`: gates `z, r, h`, `reset_after=True` (bias `[2, 3 * units]`)
  by default, as in Keras 2 (and Keras 3).

Padded steps (beyond an example's length) keep the previous output and
state, as Keras 2's masked RNNs did, so the last output is the one of the
last real step. Variables are
`rnn_model/<layer>/[<stacked cells>/]<cell>/{kernel,recurrent_kernel,bias}`:
`rnn_model/lstm/lstm_cell/kernel` for `units=32, cell_type='lstm'`,
`rnn_model/rnn/stacked_rnn_cells/gru_cell_1/kernel` for the second of
`units=[32, 16], cell_type='gru'`.
"""

from __future__ import annotations

import dataclasses
from typing import Callable

import keras
import tensorflow as tf

SIMPLE_RNN = "simple_rnn"
LSTM = "lstm"
GRU = "gru"
CELL_TYPES = (SIMPLE_RNN, LSTM, GRU)
GUIDE = "migration_guide/replacements.md#rnn-estimators"
_GATES = {SIMPLE_RNN: 1, LSTM: 4, GRU: 3}
_CELL_CLASS_KINDS = {"SimpleRNNCell": SIMPLE_RNN, "LSTMCell": LSTM, "GRUCell": GRU}


@dataclasses.dataclass
class CellSpec:
    """One recurrent cell as Keras 2 defined it.

    `name` is its variable scope (`lstm_cell`, `lstm_cell_1`, or the name the
    cell was given); initializers are `tf.compat.v1.get_variable`
    initializers.
    """

    kind: str
    units: int
    name: str
    activation: Callable = tf.tanh
    recurrent_activation: Callable = tf.sigmoid
    use_bias: bool = True
    kernel_initializer: Callable = dataclasses.field(
        default_factory=tf.compat.v1.glorot_uniform_initializer
    )
    recurrent_initializer: Callable = dataclasses.field(
        default_factory=tf.compat.v1.orthogonal_initializer
    )
    bias_initializer: Callable = dataclasses.field(default_factory=tf.compat.v1.zeros_initializer)
    unit_forget_bias: bool = True
    reset_after: bool = True
    dropout: float = 0.0
    recurrent_dropout: float = 0.0

    @property
    def state_count(self) -> int:
        return 2 if self.kind == LSTM else 1


@dataclasses.dataclass
class RNNLayer:
    """The recurrent layer: `name` (`rnn`, `lstm`, ...), its cells, `stacked_name` if stacked."""

    name: str
    cells: list
    stacked_name: str | None = None
    return_sequences: bool = False

    @property
    def output_size(self) -> int:
        return self.cells[-1].units


def default_layer(units, cell_type, return_sequences) -> RNNLayer:
    """The layer of `units` and `cell_type` (a name, or a Keras cell class).

    An int `units` with a cell type name was one Keras 2 `LSTM` / `GRU` /
    `SimpleRNN` layer (`rnn_model/lstm/lstm_cell/...`); a list of units was
    `keras.layers.RNN` over one cell (`rnn_model/rnn/lstm_cell/...`) or, for
    several, over `StackedRNNCells` (`rnn_model/rnn/stacked_rnn_cells/...`).
    """
    if isinstance(cell_type, str) and cell_type in CELL_TYPES and isinstance(units, int):
        cell = CellSpec(cell_type, units, f"{cell_type}_cell")
        return RNNLayer(cell_type, [cell], return_sequences=return_sequences)
    units = list(units)  # TypeError for an int, as the original's loop over it raised
    if not units:
        raise ValueError("units must name at least one layer's size, e.g. [32].")
    if isinstance(cell_type, str):
        if cell_type not in CELL_TYPES:
            raise ValueError(
                "`cell_type` should be a class producing a RNN cell, or a string specifying "
                f"the cell type. Supported strings are: {list(CELL_TYPES)}."
            )
        names = _Names()
        cells = [CellSpec(cell_type, n, names.next(f"{cell_type}_cell")) for n in units]
    elif callable(cell_type):
        cells = [cell_type(units=n) for n in units]
        if not all(hasattr(cell, "call") and hasattr(cell, "state_size") for cell in cells):
            raise ValueError("RNN cell should have a `call` and `state_size` method.")
        cells = cells_from_keras(cells)
    else:
        raise ValueError(
            "`cell_type` should be a class producing a RNN cell, or a string specifying the "
            f"cell type. Supported strings are: {list(CELL_TYPES)}."
        )
    if len(cells) == 1:
        return RNNLayer("rnn", cells, return_sequences=return_sequences)
    return RNNLayer("rnn", cells, "stacked_rnn_cells", return_sequences)


def layer_from_cell_fn(rnn_cell_fn, return_sequences) -> RNNLayer:
    """The layer over what `rnn_cell_fn()` returned: a cell, a list, or `StackedRNNCells`."""
    cell = rnn_cell_fn()
    if isinstance(cell, (list, tuple)):
        # keras.layers.RNN stacked a list, even of one cell.
        return RNNLayer("rnn", cells_from_keras(cell), "stacked_rnn_cells", return_sequences)
    if type(cell).__name__ == "StackedRNNCells":
        return RNNLayer("rnn", cells_from_keras(cell.cells), cell.name, return_sequences)
    return RNNLayer("rnn", cells_from_keras([cell]), return_sequences=return_sequences)


def cells_from_keras(cells) -> list:
    """`CellSpec`s of Keras cells (Keras 3's, or tf_keras's in legacy Keras mode).

    `SimpleRNNCell`, `LSTMCell` and `GRUCell` are taken with their settings;
    anything else (other cells, wrappers, subclasses) is refused, since its
    maths is not known here.
    """
    specs = []
    for cell in cells:
        kind = _CELL_CLASS_KINDS.get(type(cell).__name__)
        if kind is None or not _is_keras_class(cell):
            raise ValueError(
                f"rnn_cell_fn returned {type(cell).__module__}.{type(cell).__name__}, which "
                "the shim's RNN estimators cannot run: they take keras.layers.SimpleRNNCell, "
                "LSTMCell and GRUCell (in a list or StackedRNNCells for several). Build the "
                f"model in Keras instead (see {GUIDE})."
            )
        if any(
            getattr(cell, f"{part}_constraint", None) is not None
            for part in ("kernel", "recurrent", "bias")
        ):
            raise ValueError(
                f"{type(cell).__name__} {cell.name!r} has a weight constraint, which the RNN "
                f"estimators' optimizers do not apply here. Remove it (see {GUIDE})."
            )
        if any(
            getattr(cell, f"{part}_regularizer", None) is not None
            for part in ("kernel", "recurrent", "bias")
        ):
            tf.compat.v1.logging.warning(
                "%s %r has a regularizer: the RNN estimators do not add it to the loss "
                "(the original's did not either).",
                type(cell).__name__,
                cell.name,
            )
        spec = CellSpec(
            kind,
            int(cell.units),
            cell.name,
            activation=_activation(cell.activation),
            use_bias=bool(cell.use_bias),
            kernel_initializer=_initializer(cell.kernel_initializer),
            recurrent_initializer=_initializer(cell.recurrent_initializer),
            bias_initializer=_initializer(cell.bias_initializer),
            dropout=min(1.0, max(0.0, float(cell.dropout))),
            recurrent_dropout=min(1.0, max(0.0, float(cell.recurrent_dropout))),
        )
        if kind != SIMPLE_RNN:
            spec.recurrent_activation = _activation(cell.recurrent_activation)
        if kind == LSTM:
            spec.unit_forget_bias = bool(cell.unit_forget_bias)
        if kind == GRU:
            spec.reset_after = bool(cell.reset_after)
        specs.append(spec)
    return specs


def run(layer: RNNLayer, inputs, sequence_length, training: bool):
    """Runs `layer` over `inputs` `[batch, T, D]`, masked past `sequence_length`.

    Creates the variables in the current variable scope. Returns the output of
    the last real step `[batch, units]`, or of every step `[batch, T, units]`
    with `return_sequences`.
    """
    with tf.compat.v1.variable_scope(layer.name):
        if layer.stacked_name:
            with tf.compat.v1.variable_scope(layer.stacked_name):
                weights = _make_weights(layer.cells, inputs.shape[-1])
        else:
            weights = _make_weights(layer.cells, inputs.shape[-1])
    with tf.name_scope(layer.name):
        batch = tf.shape(inputs)[0]
        steps = tf.shape(inputs)[1]
        mask = tf.sequence_mask(sequence_length, maxlen=steps)
        masks = [
            _dropout_masks(cell, batch, width, training)
            for cell, width in zip(layer.cells, _input_widths(layer.cells, inputs.shape[-1]))
        ]
        time_major = tf.transpose(inputs, [1, 0, 2])
        time_mask = tf.transpose(mask)
        zeros = tf.zeros([batch, layer.output_size], inputs.dtype)
        states = tuple(
            tf.zeros([batch, cell.units], inputs.dtype)
            for cell in layer.cells
            for _ in range(cell.state_count)
        )
        outputs = tf.TensorArray(inputs.dtype, size=steps, element_shape=zeros.shape)

        def step(t, previous, states, outputs):
            x = time_major[t]
            new_states = []
            position = 0
            for cell, cell_weights, cell_masks in zip(layer.cells, weights, masks):
                cell_states = states[position : position + cell.state_count]
                position += cell.state_count
                x, cell_states = _STEPS[cell.kind](cell, cell_weights, cell_masks, x, cell_states)
                new_states.extend(cell_states)
            keep = time_mask[t][:, None]
            output = tf.where(keep, x, previous)
            new_states = tuple(tf.where(keep, new, old) for new, old in zip(new_states, states))
            if layer.return_sequences:
                outputs = outputs.write(t, output)
            return t + 1, output, new_states, outputs

        _, last, _, outputs = tf.while_loop(
            lambda t, *_: t < steps, step, (tf.constant(0), zeros, states, outputs)
        )
    if layer.return_sequences:
        return tf.transpose(outputs.stack(), [1, 0, 2])
    return last


def _make_weights(cells, input_width) -> list:
    weights = []
    for cell, width in zip(cells, _input_widths(cells, input_width)):
        gates = _GATES[cell.kind]
        with tf.compat.v1.variable_scope(cell.name):
            kernel = tf.compat.v1.get_variable(
                "kernel", [width, gates * cell.units], initializer=cell.kernel_initializer
            )
            recurrent = tf.compat.v1.get_variable(
                "recurrent_kernel",
                [cell.units, gates * cell.units],
                initializer=cell.recurrent_initializer,
            )
            bias = None
            if cell.use_bias:
                bias = tf.compat.v1.get_variable(
                    "bias", _bias_shape(cell), initializer=_bias_initializer(cell)
                )
        weights.append((kernel, recurrent, bias))
    return weights


def _input_widths(cells, input_width):
    widths = [int(input_width)]
    for cell in cells[:-1]:
        widths.append(cell.units)
    return widths


def _bias_shape(cell):
    gates = _GATES[cell.kind]
    if cell.kind == GRU and cell.reset_after:
        return [2, gates * cell.units]
    return [gates * cell.units]


def _bias_initializer(cell):
    if not (cell.kind == LSTM and cell.unit_forget_bias):
        return cell.bias_initializer
    units, initializer = cell.units, cell.bias_initializer

    def forget_bias_one(shape, dtype=tf.float32, partition_info=None):
        return tf.concat(
            [
                initializer([units], dtype=dtype),
                tf.ones([units], dtype),
                initializer([2 * units], dtype=dtype),
            ],
            0,
        )

    return forget_bias_one


def _dropout_masks(cell, batch, width, training):
    """`(input masks, recurrent masks)`, drawn once per batch as Keras 2 did.

    With `recurrent_dropout`, Keras 2 ran the cell's implementation 1, with a
    mask per gate; otherwise one input mask served all gates.
    """
    if not training:
        return None, None
    per_gate = _GATES[cell.kind] if cell.recurrent_dropout > 0 else 1

    def masks(rate, size):
        if not 0 < rate < 1:
            return None
        ones = tf.ones([batch, size])
        return [tf.nn.dropout(ones, rate=rate) for _ in range(per_gate)]

    return masks(cell.dropout, width), masks(cell.recurrent_dropout, cell.units)


def _gate_inputs(x, kernel, bias, input_masks, gates):
    """`x W + b` for all gates, with each gate's input dropout mask."""
    if input_masks is None or len(input_masks) == 1:
        if input_masks is not None:
            x = x * input_masks[0]
        z = tf.matmul(x, kernel)
        return tf.nn.bias_add(z, bias) if bias is not None else z
    kernels = tf.split(kernel, gates, axis=1)
    parts = [tf.matmul(x * m, k) for m, k in zip(input_masks, kernels)]
    z = tf.concat(parts, axis=1)
    return tf.nn.bias_add(z, bias) if bias is not None else z


def _gate_recurrent(h, recurrent, recurrent_masks, gates):
    """`h U` for all gates, with each gate's recurrent dropout mask."""
    if recurrent_masks is None:
        return tf.matmul(h, recurrent)
    if len(recurrent_masks) == 1:
        return tf.matmul(h * recurrent_masks[0], recurrent)
    kernels = tf.split(recurrent, gates, axis=1)
    return tf.concat([tf.matmul(h * m, k) for m, k in zip(recurrent_masks, kernels)], axis=1)


def _simple_rnn_step(cell, weights, masks, x, states):
    kernel, recurrent, bias = weights
    input_masks, recurrent_masks = masks
    h = _gate_inputs(x, kernel, bias, input_masks, 1) + _gate_recurrent(
        states[0], recurrent, recurrent_masks, 1
    )
    h = cell.activation(h)
    return h, [h]


def _lstm_step(cell, weights, masks, x, states):
    kernel, recurrent, bias = weights
    input_masks, recurrent_masks = masks
    h_previous, c_previous = states
    z = _gate_inputs(x, kernel, bias, input_masks, 4) + _gate_recurrent(
        h_previous, recurrent, recurrent_masks, 4
    )
    z_i, z_f, z_c, z_o = tf.split(z, 4, axis=1)
    i = cell.recurrent_activation(z_i)
    f = cell.recurrent_activation(z_f)
    c = f * c_previous + i * cell.activation(z_c)
    o = cell.recurrent_activation(z_o)
    h = o * cell.activation(c)
    return h, [h, c]


def _gru_step(cell, weights, masks, x, states):
    kernel, recurrent, bias = weights
    input_masks, recurrent_masks = masks
    h_previous = states[0]
    if bias is not None and cell.reset_after:
        input_bias, recurrent_bias = tf.unstack(bias)
    else:
        input_bias, recurrent_bias = bias, None
    x_z, x_r, x_h = tf.split(_gate_inputs(x, kernel, input_bias, input_masks, 3), 3, axis=1)
    if recurrent_masks is None:
        recurrent_masks = [None]
    if len(recurrent_masks) == 1:
        recurrent_masks = recurrent_masks * 3
    h_z, h_r, h_h = (h_previous if mask is None else h_previous * mask for mask in recurrent_masks)
    u_z, u_r, u_h = tf.split(recurrent, 3, axis=1)
    r_z = tf.matmul(h_z, u_z)
    r_r = tf.matmul(h_r, u_r)
    if recurrent_bias is not None:
        b_z, b_r, b_h = tf.split(recurrent_bias, 3)
        r_z, r_r = r_z + b_z, r_r + b_r
    z = cell.recurrent_activation(x_z + r_z)
    r = cell.recurrent_activation(x_r + r_r)
    if cell.reset_after:
        r_h = tf.matmul(h_h, u_h)
        if recurrent_bias is not None:
            r_h = r_h + b_h
        r_h = r * r_h
    else:
        r_h = tf.matmul(r * h_h, u_h)
    hh = cell.activation(x_h + r_h)
    h = z * h_previous + (1 - z) * hh
    return h, [h]


_STEPS = {SIMPLE_RNN: _simple_rnn_step, LSTM: _lstm_step, GRU: _gru_step}


class _Names:
    """Keras 2's per-graph layer names: `lstm_cell`, `lstm_cell_1`, ..."""

    def __init__(self):
        self._counts = {}

    def next(self, base: str) -> str:
        count = self._counts.get(base, 0)
        self._counts[base] = count + 1
        return base if count == 0 else f"{base}_{count}"


def _is_keras_class(cell) -> bool:
    """Whether `cell` is Keras's own cell class (Keras 3's or tf_keras's), not a subclass."""
    root = type(cell).__module__.split(".")[0]
    return root in ("keras", "tf_keras")


def _activation(function):
    """A Keras activation as a function of TF tensors (None: linear, as in Keras)."""
    if function is None:
        return tf.identity
    if isinstance(function, str):
        return keras.activations.get(function)
    return function


_TF1_INITIALIZERS = {
    "GlorotUniform": tf.compat.v1.glorot_uniform_initializer,
    "GlorotNormal": tf.compat.v1.glorot_normal_initializer,
    "Zeros": tf.compat.v1.zeros_initializer,
    "Ones": tf.compat.v1.ones_initializer,
}


def _initializer(initializer):
    """A `get_variable` initializer from a Keras one.

    Keras's defaults become TF1's own initializers, which take the graph's
    seed (`RunConfig(tf_random_seed=...)`) as the original's did; any other
    initializer is called as Keras calls it.
    """
    name = type(initializer).__name__
    config = initializer.get_config() if hasattr(initializer, "get_config") else {}
    if name in _TF1_INITIALIZERS and config.get("seed") is None:
        return _TF1_INITIALIZERS[name]()
    if name in ("Orthogonal", "OrthogonalInitializer") and config.get("seed") is None:
        return tf.compat.v1.orthogonal_initializer(gain=config.get("gain", 1.0))

    def call(shape, dtype=tf.float32, partition_info=None):
        return tf.convert_to_tensor(initializer(list(shape), dtype=tf.as_dtype(dtype).name))

    return call
