"""One Estimator's model between calls: its variables, the traces that use them, how they start.

The original built a fresh graph and Session on every `train()`, `evaluate()`,
`predict()` and export, restoring the variables from `model_dir`. Here the
variables live across calls in one `VariableStore`, and a trace of the
model_fn (with the Keras model that runs it) is reused by later calls with the
same input signature. `ModelState` owns both, and gives each call the start
the original's fresh Session had: restored from a checkpoint (by TF1 names,
or by the Scaffold's `tf.train.Checkpoint`), or initialized (initial values,
warm-starting, the Scaffold's `init_op` and `init_fn`). `Estimator`
orchestrates calls through it; export and hooks use it through this interface.
"""

import tensorflow as tf

from tfestimator_compat.engine.distributed import distribution
from tfestimator_compat.engine.loop import compiled_step
from tfestimator_compat.engine.loop.keras_adapter import ModelFnModel
from tfestimator_compat.engine.state import checkpoints
from tfestimator_compat.engine.state import object_checkpoints
from tfestimator_compat.engine.state import scaffold
from tfestimator_compat.engine.variables import variable_store
from tfestimator_compat.engine.variables.variable_store import VariableStore

# How many vanished checkpoints a call following the newest one gets past.
_RESTORE_ATTEMPTS = 20


class ModelState:
    """The variables and traces of one Estimator, and how each call starts them.

    Args:
        config: the Estimator's `RunConfig` (its strategies place the
            variables, its `tf_random_seed` seeds them, its `model_dir` holds
            the checkpoints).
        warm_start: `warm_start(store, trainable_names)` initializes variables
            from another model, or None.
    """

    def __init__(self, config, warm_start=None):
        self._config = config
        self._warm_start = warm_start
        # Asked for when the Estimator is made, before it runs a function (XLA reads flags then).
        self._compiled_step = compiled_step.prepare(config.session_config)
        # Other keys restores may find variables under (`checkpoints.KeyAliases`):
        # model_to_estimator reads the original's layouts through them.
        self.key_aliases = None
        self._reusable = {}
        self.fresh_variables()

    @property
    def model_dir(self):
        return self._config.model_dir

    def fresh_variables(self):
        """Starts over with a new, empty variable store (and no traces of the old one)."""
        self.store = VariableStore(
            distribution.variable_strategy(self._config), seed=self._config.tf_random_seed
        )
        self._trained = False
        self._reusable.clear()

    def place_variables_with(self, strategy):
        """A new, empty store whose variables `strategy` places (a parameter-server cluster's)."""
        self.store = VariableStore(strategy, seed=self._config.tf_random_seed)
        self._reusable.clear()

    def mark_trained(self):
        """The variables now hold what a `train()` made of them."""
        self._trained = True

    def start_from(self, checkpoint_path):
        """Makes a call without a checkpoint start from initial values, as in the original.

        The original built a fresh graph per call, so with no checkpoint to
        restore (checkpointing off) every call started from scratch at step 0.
        Variables a previous `train()` changed are dropped for new ones then.
        """
        if checkpoint_path is None and self._trained:
            self.fresh_variables()

    def traced(self, mode, inputs, trace):
        """The traced model_fn and its Keras model for a call in `mode` on `inputs`.

        `trace()` traces the model_fn; its result is reused by later calls
        with the same input signature: tracing and the first run of new
        functions cost more than the original's graph building. A model_fn
        that returns hooks is traced on every call, so its hooks are fresh
        objects each time, as in the original.
        """
        key = (mode, inputs.trace_key)
        if key in self._reusable:
            graph, model = self._reusable[key]
            graph.random_ops.restart()
            return graph, model
        graph = trace()
        model = ModelFnModel(graph, inputs.unpack, inputs.endless, self._compiled_step)
        model.compile()
        model.weights_by_name = {
            name: variable
            for name, variable in self.variables_of(graph).items()
            if name != "global_step" and not variable_store.is_table(variable)
        }
        spec = graph.spec
        hooks = (
            spec.training_hooks
            or spec.training_chief_hooks
            or spec.evaluation_hooks
            or spec.prediction_hooks
        )
        if not hooks:
            self._reusable[key] = (graph, model)
        return graph, model

    def calls_of(self, mode):
        """How many times the step functions of `mode`'s reused traces were called."""
        return sum(model.calls for key, (_, model) in self._reusable.items() if key[0] == mode)

    def models(self):
        """The Keras models of the reused traces."""
        return [model for _, model in self._reusable.values()]

    def variables_of(self, graph):
        """Name -> variable of the checkpointed variables `graph` uses (or that the
        Scaffold's Saver names, under its keys)."""
        by_scaffold = scaffold.saved_variables(graph.spec.scaffold.saver, self.store)
        if by_scaffold is not None:
            return by_scaffold
        in_graph = self.store.names_of(
            graph.collections.get(tf.compat.v1.GraphKeys.GLOBAL_VARIABLES, [])
        )
        saved = self.store.global_variables()
        variables = {name: saved[name] for name in sorted(set(in_graph)) if name in saved}
        tables = self.store.tables_of(graph.collections.get(variable_store.TABLES, []))
        return {**variables, **tables}

    def initialize(self, graph, checkpoint_path, follow_latest=False):
        """Restores `graph`'s variables, or initializes them when there is no checkpoint,
        then runs the Scaffold's local init and readiness checks.

        With `follow_latest`, a checkpoint that a concurrent training job
        deleted (keep_checkpoint_max) while this call was starting is replaced
        by the newest one. Returns the checkpoint restored, or None.
        """
        if checkpoint_path:
            checkpoint_path = self._restore(graph, checkpoint_path, follow_latest)
            restored = self.store.names_of(self._restorable_variables(graph))
            source = f"restoring {checkpoint_path}"
            scaffold.make_ready(graph, self.store, restored, source)
            return checkpoint_path
        initialized = scaffold.run_init_op(graph, self.store)
        if graph.spec.scaffold.init_op is None:
            self._initialize_variables(graph)
        scaffold.run_init_fn(graph)
        source = "initialization" if initialized is None else "the Scaffold's init_op"
        scaffold.make_ready(graph, self.store, initialized, source)
        return None

    def _restore(self, graph, checkpoint_path, follow_latest):
        # Each retry means a newer checkpoint exists: a trainer saving every
        # few steps with a small keep_checkpoint_max can outrun a few.
        for _ in range(_RESTORE_ATTEMPTS):
            try:
                self.restore_from(graph, checkpoint_path)
                return checkpoint_path
            except (tf.errors.OpError, ValueError):
                # Whatever the reader says of a file deleted under it (NotFoundError,
                # DataLossError, or a bare OpError "No such file"), `incomplete`
                # decides: only a checkpoint that vanished is retried.
                vanished = checkpoints.incomplete(checkpoint_path) is not None
                newest = None
                if follow_latest and vanished:
                    newest = checkpoints.latest_checkpoint(self.model_dir)
                if newest is None or newest == checkpoint_path:
                    raise
                checkpoint_path = newest
        raise ValueError(f"Checkpoints in {self.model_dir} keep vanishing while restoring.")

    def checkpoint_saver(self, graph, config):
        """What writes `graph`'s checkpoints: by TF1 names, or by the Scaffold's
        `tf.train.Checkpoint`."""
        saver = graph.spec.scaffold.saver
        if object_checkpoints.is_object_saver(saver):
            stand_ins = object_checkpoints.stand_ins(saver, self.store, graph.graph)
            counters = object_checkpoints.step_counters(saver, graph.graph)
            return object_checkpoints.ObjectCheckpointSaver(
                config.model_dir, saver, stand_ins, counters
            )
        return checkpoints.CheckpointSaver(
            config.model_dir,
            self.variables_of(graph),
            *scaffold.checkpoints_to_keep(saver, config),
        )

    def restore_from(self, graph, checkpoint_path):
        """Gives `graph`'s variables the values `checkpoint_path` holds."""
        saver = graph.spec.scaffold.saver
        if object_checkpoints.is_object_saver(saver):
            stand_ins = object_checkpoints.stand_ins(saver, self.store, graph.graph)
            object_checkpoints.restore(checkpoint_path, saver, stand_ins)
        elif not scaffold.restore_with_custom_saver(graph, checkpoint_path):
            checkpoints.restore(checkpoint_path, self.variables_of(graph), self.key_aliases)

    def _restorable_variables(self, graph):
        """The variables a restore gives values to (a `tf.train.Checkpoint` may reach fewer)."""
        saver = graph.spec.scaffold.saver
        if object_checkpoints.is_object_saver(saver):
            stand_ins = object_checkpoints.stand_ins(saver, self.store, graph.graph)
            return object_checkpoints.reachable_variables(saver) + list(stand_ins.values())
        return list(self.variables_of(graph).values())

    def _initialize_variables(self, graph):
        """The default initialization: initial values (already theirs), warm-starting,
        `init_from_checkpoint` in the model_fn."""
        if self._warm_start is not None:
            trainable = self.store.names_of(
                graph.collections.get(tf.compat.v1.GraphKeys.TRAINABLE_VARIABLES, [])
            )
            self._warm_start(self.store, trainable)
        if graph.initializer_overrides is not None:
            graph.value_function(graph.initializer_overrides)()
