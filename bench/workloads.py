"""The workloads estimator users run: the shim vs the original vs native Keras 3.

Three workloads, each run through the shim, through the original
tensorflow-estimator 2.15 (given `--original-python`) and as the native Keras 3
program the migration guide leads to (migration_guide/to_native_keras.md):

- wide_deep: `DNNLinearCombinedClassifier` (hidden 256/128/64, batch 256) on
  census-like data: numeric, bucketized, vocabulary-list, hashed (10,000
  buckets), crossed and embedding columns, read from TFRecord files parsed with
  `tf.io.parse_example` in the input_fn. Its evaluate runs over 100 batches and
  its predict over 200,000 rows (fewer with --quick).
- cnn: a custom model_fn on 28x28 images with `tf.compat.v1.layers` (conv2d,
  max_pooling2d, dense); batch 128.
- bert: a 2-layer BERT-style encoder (hidden 128, 2 heads, sequence length 64,
  batch 32) through `TPUEstimator(use_tpu=False)`, trained with a BERT-style
  AdamWeightDecay written as a TF1 optimizer.

The estimator code is written once against the `tf.estimator` API: the original
runs it with `tf.estimator`, the shim with `tfestimator_compat`; "shim+xla" is
the shim with its opt-in compiled step (`TFESTIMATOR_COMPAT_XLA=1`: XLA
auto-clustering of the step functions, engine/loop/compiled_step.py). Each side and
workload runs in a fresh process per round (so peak RSS is that workload's
alone), sides alternating, and each figure is the best of the rounds:

    python bench/workloads.py --original-python /path/to/venv215/bin/python

"steady steps/s" is the difference between a long and a short `train()` (or
`fit`) call, so per-call costs such as the final checkpoint drop out; "first
train s" is the first call of all (tracing, graph build, session start);
"fixed-batch steps/s" is the same on one batch repeated
(`Dataset.from_tensors(batch).repeat()`): the program's own training step, with
no input pipeline in front of it. Evaluate and predict rates time a call after
a warm-up call. "op-time ceiling"
(measured in the native program) is the steps/s of the model's kernels alone,
on one fixed batch in one compiled loop: the most any program running them
can reach on the machine.
"""

import argparse
import json
import os
import resource
import statistics
import sys
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
from side_by_side import alternating_rounds  # noqa: E402
from side_by_side import steady_and_overhead  # noqa: E402
from side_by_side import timed  # noqa: E402

EDUCATION = (
    "Bachelors HS-grad 11th Masters 9th Some-college Assoc-acdm Assoc-voc 7th-8th "
    "Doctorate Prof-school 5th-6th 10th 1st-4th Preschool 12th"
).split()
AGE_BOUNDARIES = [25.0, 30.0, 35.0, 40.0, 45.0, 50.0, 55.0, 60.0, 65.0]
HASH_BUCKETS = 10_000
IMAGE, CLASSES = 28, 10
VOCAB, SEQ, HIDDEN, HEADS, LAYERS, INTERMEDIATE = 1000, 64, 128, 2, 2, 512


class Sizes:
    """Steps and rows per workload; --quick shrinks them to fit a few minutes."""

    def __init__(self, workload, quick):
        self.first_steps = 5
        slow = workload in ("cnn", "bert")  # tens of steps/s on 2 CPU cores
        if quick:
            self.short, self.long, self.repeats = 5, (40 if slow else 100), 1
        else:
            self.short, self.long, self.repeats = 20, (200 if slow else 1000), 3
        self.eval_batches = 20 if quick else 100
        self.predict_rows = 20_000 if quick else 200_000
        self.small_predict_rows = 1024 if quick else 8192
        self.records = 8192 if quick else 51_200


# ----------------------------------------------------------------------------
# Data: deterministic, generated in each process into a temp dir.


def census_like(rows, seed):
    rng = np.random.RandomState(seed)
    age = rng.randint(17, 90, rows).astype(np.float32)
    hours = rng.randint(1, 99, rows).astype(np.float32)
    education = np.array(EDUCATION)[rng.randint(0, len(EDUCATION), rows)]
    occupation = np.array([f"occupation_{i}" for i in rng.randint(0, 5000, rows)])
    score = (age - 40) / 15 + (hours - 40) / 20 + (rng.rand(rows) - 0.5)
    label = (score > 0).astype(np.int64)
    features = {"age": age, "hours": hours, "education": education, "occupation": occupation}
    return features, label


def write_census_records(tf, directory, rows, shards=4):
    features, label = census_like(rows, seed=0)
    paths = []
    for shard in range(shards):
        path = os.path.join(directory, f"census-{shard}.tfrecord")
        with tf.io.TFRecordWriter(path) as writer:
            for i in range(shard, rows, shards):
                example = tf.train.Example(
                    features=tf.train.Features(
                        feature={
                            "age": float_feature(tf, features["age"][i]),
                            "hours": float_feature(tf, features["hours"][i]),
                            "education": bytes_feature(tf, features["education"][i]),
                            "occupation": bytes_feature(tf, features["occupation"][i]),
                            "label": tf.train.Feature(
                                int64_list=tf.train.Int64List(value=[label[i]])
                            ),
                        }
                    )
                )
                writer.write(example.SerializeToString())
        paths.append(path)
    return paths


def float_feature(tf, value):
    return tf.train.Feature(float_list=tf.train.FloatList(value=[value]))


def bytes_feature(tf, value):
    return tf.train.Feature(bytes_list=tf.train.BytesList(value=[value.encode()]))


def census_spec(tf):
    return {
        "age": tf.io.FixedLenFeature([1], tf.float32),
        "hours": tf.io.FixedLenFeature([1], tf.float32),
        "education": tf.io.FixedLenFeature([1], tf.string),
        "occupation": tf.io.FixedLenFeature([1], tf.string),
        "label": tf.io.FixedLenFeature([1], tf.int64),
    }


def census_records(tf, paths, batch, repeat):
    """Batches of (features, label) parsed from the TFRecord files."""

    def parse(serialized):
        features = tf.io.parse_example(serialized, census_spec(tf))
        return features, features.pop("label")

    dataset = tf.data.TFRecordDataset(paths)
    if repeat:
        dataset = dataset.repeat()
    return dataset.batch(batch).map(parse).prefetch(1)


def census_in_memory(tf, rows, batch):
    features, _ = census_like(rows, seed=2)
    columns = {name: values.reshape(-1, 1) for name, values in features.items()}
    return tf.data.Dataset.from_tensor_slices(columns).batch(batch)


def images(rows, seed=0):
    rng = np.random.RandomState(seed)
    labels = rng.randint(0, CLASSES, rows).astype(np.int64)
    pixels = rng.rand(rows, IMAGE, IMAGE, 1).astype(np.float32) * 0.5
    pixels[np.arange(rows), labels * 2 + 4, 4:24, 0] += 0.5  # a class-dependent stripe
    return pixels, labels


def token_ids(rows, seed=0):
    rng = np.random.RandomState(seed)
    ids = rng.randint(1, VOCAB, (rows, SEQ)).astype(np.int32)
    labels = (ids[:, 1] % 2).astype(np.int64)
    return ids, labels


# ----------------------------------------------------------------------------
# The estimator programs, the same for the original and the shim.


def wide_deep_estimator(tf, estimator_module, model_dir):
    fc = tf.feature_column
    age = fc.numeric_column("age")
    hours = fc.numeric_column("hours")
    education = fc.categorical_column_with_vocabulary_list("education", EDUCATION)
    occupation = fc.categorical_column_with_hash_bucket("occupation", HASH_BUCKETS)
    crossed = fc.crossed_column(["education", "occupation"], HASH_BUCKETS)
    return estimator_module.DNNLinearCombinedClassifier(
        model_dir=model_dir,
        linear_feature_columns=[
            fc.bucketized_column(age, AGE_BOUNDARIES),
            education,
            occupation,
            crossed,
        ],
        dnn_feature_columns=[
            age,
            hours,
            fc.indicator_column(education),
            fc.embedding_column(occupation, 16),
        ],
        dnn_hidden_units=[256, 128, 64],
    )


def run_wide_deep(tf, estimator_module, sizes, directory):
    paths = write_census_records(tf, directory, sizes.records)
    classifier = wide_deep_estimator(tf, estimator_module, os.path.join(directory, "model"))

    def input_fn():
        return census_records(tf, paths, 256, repeat=True)

    return estimator_figures(
        classifier,
        sizes,
        train_input_fn=input_fn,
        fixed_batch=first_batch(tf, input_fn()),
        eval_input_fn=input_fn,
        predict_input_fn=lambda rows: census_in_memory(tf, rows, 256),
        predict_rows=sizes.predict_rows,
    )


def cnn_model_fn(tf, estimator_module):
    layers = tf.compat.v1.layers

    def model_fn(features, labels, mode):
        net = layers.conv2d(features["image"], 32, 5, padding="same", activation=tf.nn.relu)
        net = layers.max_pooling2d(net, 2, 2)
        net = layers.conv2d(net, 64, 5, padding="same", activation=tf.nn.relu)
        net = layers.max_pooling2d(net, 2, 2)
        net = tf.reshape(net, [-1, 7 * 7 * 64])
        net = layers.dense(net, 256, activation=tf.nn.relu)
        logits = layers.dense(net, CLASSES)
        classes = tf.argmax(logits, 1)
        if mode == estimator_module.ModeKeys.PREDICT:
            return estimator_module.EstimatorSpec(mode, predictions={"class": classes})
        loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
        if mode == estimator_module.ModeKeys.EVAL:
            accuracy = tf.compat.v1.metrics.accuracy(labels, classes)
            return estimator_module.EstimatorSpec(
                mode, loss=loss, eval_metric_ops={"accuracy": accuracy}
            )
        train_op = tf.compat.v1.train.AdamOptimizer(1e-3).minimize(
            loss, global_step=tf.compat.v1.train.get_global_step()
        )
        return estimator_module.EstimatorSpec(mode, loss=loss, train_op=train_op)

    return model_fn


def run_cnn(tf, estimator_module, sizes, directory):
    pixels, labels = images(2048)

    def input_fn():
        dataset = tf.data.Dataset.from_tensor_slices(({"image": pixels}, labels))
        return dataset.repeat().batch(128)

    def predict_input_fn(rows):
        return tf.data.Dataset.from_tensor_slices({"image": pixels[:rows]}).batch(128)

    estimator = estimator_module.Estimator(cnn_model_fn(tf, estimator_module), directory)
    return estimator_figures(
        estimator,
        sizes,
        train_input_fn=input_fn,
        fixed_batch=first_batch(tf, input_fn()),
        eval_input_fn=input_fn,
        predict_input_fn=predict_input_fn,
        predict_rows=min(sizes.small_predict_rows, len(pixels)),
    )


def adam_weight_decay_class(tf):
    """BERT's optimizer as BERT wrote it: a TF1 Optimizer with its own apply_gradients."""

    class AdamWeightDecay(tf.compat.v1.train.Optimizer):
        def __init__(self, learning_rate, weight_decay_rate=0.01, beta_1=0.9, beta_2=0.999):
            super().__init__(False, "AdamWeightDecay")
            self.learning_rate = learning_rate
            self.weight_decay_rate = weight_decay_rate
            self.beta_1, self.beta_2 = beta_1, beta_2

        def apply_gradients(self, grads_and_vars, global_step=None, name=None):
            updates = []
            for grad, param in grads_and_vars:
                grad = tf.convert_to_tensor(grad)  # BERT densifies the embedding's sparse grads too
                base = param.name.split(":")[0]
                m, v = (
                    tf.compat.v1.get_variable(
                        f"{base}/adam_{slot}",
                        param.shape,
                        initializer=tf.compat.v1.zeros_initializer(),
                        trainable=False,
                    )
                    for slot in ("m", "v")
                )
                next_m = self.beta_1 * m + (1.0 - self.beta_1) * grad
                next_v = self.beta_2 * v + (1.0 - self.beta_2) * tf.square(grad)
                decay = 0.0 if "layer_norm" in base or "bias" in base else self.weight_decay_rate
                update = next_m / (tf.sqrt(next_v) + 1e-6) + decay * param
                updates += [
                    param.assign(param - self.learning_rate * update),
                    m.assign(next_m),
                    v.assign(next_v),
                ]
            with tf.control_dependencies(updates):
                return global_step.assign_add(1)

    return AdamWeightDecay


def bert_model_fn(tf, estimator_module, tpu):
    dense = tf.compat.v1.layers.dense
    head_size = HIDDEN // HEADS
    adam_weight_decay = adam_weight_decay_class(tf)

    def layer_norm(x, name):
        with tf.compat.v1.variable_scope(name):
            gamma = tf.compat.v1.get_variable("gamma", [HIDDEN], initializer=tf.ones_initializer())
            beta = tf.compat.v1.get_variable("beta", [HIDDEN], initializer=tf.zeros_initializer())
        mean, variance = tf.nn.moments(x, [-1], keepdims=True)
        return (x - mean) * tf.math.rsqrt(variance + 1e-12) * gamma + beta

    def heads(x):
        return tf.transpose(tf.reshape(x, [-1, SEQ, HEADS, head_size]), [0, 2, 1, 3])

    def encoder_layer(x):
        query, key, value = (heads(dense(x, HIDDEN, name=n)) for n in ("query", "key", "value"))
        scores = tf.matmul(query, key, transpose_b=True) / float(head_size) ** 0.5
        context = tf.matmul(tf.nn.softmax(scores), value)
        context = tf.reshape(tf.transpose(context, [0, 2, 1, 3]), [-1, SEQ, HIDDEN])
        x = layer_norm(x + dense(context, HIDDEN, name="attention_output"), "attention_layer_norm")
        inner = dense(x, INTERMEDIATE, activation=tf.nn.gelu, name="intermediate")
        return layer_norm(x + dense(inner, HIDDEN, name="output"), "output_layer_norm")

    def model_fn(features, labels, mode, params):
        with tf.compat.v1.variable_scope("bert"):
            tokens = tf.compat.v1.get_variable("word_embeddings", [VOCAB, HIDDEN])
            positions = tf.compat.v1.get_variable("position_embeddings", [SEQ, HIDDEN])
            x = tf.gather(tokens, features["input_ids"]) + positions
            x = layer_norm(x, "embeddings_layer_norm")
            for index in range(LAYERS):
                with tf.compat.v1.variable_scope(f"layer_{index}"):
                    x = encoder_layer(x)
            pooled = dense(x[:, 0], HIDDEN, activation=tf.tanh, name="pooler")
        logits = dense(pooled, 2, name="classifier")
        if mode == estimator_module.ModeKeys.PREDICT:
            return tpu.TPUEstimatorSpec(mode, predictions={"class": tf.argmax(logits, 1)})
        loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
        if mode == estimator_module.ModeKeys.EVAL:

            def metric_fn(labels, logits):
                return {"accuracy": tf.compat.v1.metrics.accuracy(labels, tf.argmax(logits, 1))}

            return tpu.TPUEstimatorSpec(mode, loss=loss, eval_metrics=(metric_fn, [labels, logits]))
        global_step = tf.compat.v1.train.get_global_step()
        learning_rate = tf.compat.v1.train.polynomial_decay(
            1e-4, global_step, 10_000, end_learning_rate=0.0
        )
        warmup = tf.minimum(tf.cast(global_step, tf.float32) / 100.0, 1.0)
        train_op = adam_weight_decay(learning_rate * warmup).minimize(loss, global_step=global_step)
        return tpu.TPUEstimatorSpec(mode, loss=loss, train_op=train_op)

    return model_fn


def run_bert(tf, estimator_module, tpu, sizes, directory):
    ids, labels = token_ids(1024)

    def input_fn(params):
        dataset = tf.data.Dataset.from_tensor_slices(({"input_ids": ids}, labels)).repeat()
        return dataset.batch(params["batch_size"], drop_remainder=True)

    def predict_input_fn(rows):
        def fn(params):
            dataset = tf.data.Dataset.from_tensor_slices({"input_ids": ids[:rows]})
            return dataset.batch(params["batch_size"], drop_remainder=True)

        return fn

    estimator = tpu.TPUEstimator(
        bert_model_fn(tf, estimator_module, tpu),
        config=tpu.RunConfig(
            model_dir=directory, tpu_config=tpu.TPUConfig(iterations_per_loop=100)
        ),
        use_tpu=False,
        train_batch_size=32,
        eval_batch_size=32,
        predict_batch_size=32,
    )
    return estimator_figures(
        estimator,
        sizes,
        train_input_fn=input_fn,
        fixed_batch=first_batch(tf, input_fn({"batch_size": 32})),
        eval_input_fn=input_fn,
        predict_input_fn=predict_input_fn,
        predict_rows=min(sizes.small_predict_rows, len(ids)),
        predict_input_fn_takes_rows=False,
    )


def estimator_figures(
    estimator,
    sizes,
    train_input_fn,
    fixed_batch,
    eval_input_fn,
    predict_input_fn,
    predict_rows,
    predict_input_fn_takes_rows=True,
):
    if predict_input_fn_takes_rows:
        make_input_fn = lambda rows: lambda: predict_input_fn(rows)  # noqa: E731
    else:
        make_input_fn = predict_input_fn
    return figures(
        sizes,
        train=lambda steps: estimator.train(train_input_fn, steps=steps),
        train_fixed=lambda steps: estimator.train(repeated(fixed_batch), steps=steps),
        evaluate=lambda: estimator.evaluate(eval_input_fn, steps=sizes.eval_batches),
        count_predictions=lambda rows: sum(1 for _ in estimator.predict(make_input_fn(rows))),
        predict_rows=predict_rows,
    )


def first_batch(tf, dataset):
    """`dataset`'s first element as numpy arrays, for `repeated`."""
    return tf.nest.map_structure(lambda tensor: tensor.numpy(), next(iter(dataset)))


def repeated(batch):
    """An input_fn that repeats one batch: the estimator's own step, with no input
    pipeline in front of it (the numpy arrays become constants of its graph)."""

    def input_fn(params=None):
        import tensorflow as tf

        return tf.data.Dataset.from_tensors(batch).repeat()

    return input_fn


def figures(sizes, train, train_fixed, evaluate, count_predictions, predict_rows):
    """The table's figures from one side's train(steps), train_fixed(steps) (on one
    batch repeated), evaluate() and prediction count."""
    first_train = timed(lambda: train(sizes.first_steps))
    steps_per_s, _ = steady_and_overhead(
        train, long=sizes.long, short=sizes.short, repeats=sizes.repeats
    )
    fixed_steps_per_s, _ = steady_and_overhead(
        train_fixed, long=sizes.long, short=sizes.short, repeats=sizes.repeats
    )
    evaluate()
    evaluate_s = timed(evaluate)

    def predict(rows):
        count = count_predictions(rows)
        assert count == rows, (count, rows)

    predict(256)
    predict_s = timed(lambda: predict(predict_rows))
    return {
        "steady steps/s": steps_per_s,
        "fixed-batch steps/s": fixed_steps_per_s,
        "first train s": first_train,
        "eval batches/s": sizes.eval_batches / evaluate_s,
        "predict rows/s": predict_rows / predict_s,
    }


# ----------------------------------------------------------------------------
# The native Keras 3 programs: keras.Model, tf.data input, fit/evaluate/predict.


def native_wide_deep(tf, keras, sizes, directory):
    paths = write_census_records(tf, directory, sizes.records)
    age_buckets = keras.layers.Discretization(bin_boundaries=AGE_BOUNDARIES)
    education_ids = keras.layers.StringLookup(vocabulary=EDUCATION)
    occupation_ids = keras.layers.Hashing(HASH_BUCKETS)
    crossed_ids = keras.layers.HashedCrossing(HASH_BUCKETS)

    def preprocess(features):
        """Feature columns -> Keras preprocessing, run in tf.data (replacements.md)."""
        education = education_ids(features["education"])
        return {
            "age": features["age"],
            "hours": features["hours"],
            "age_bucket": age_buckets(features["age"]),
            "education": education,
            "education_one_hot": tf.one_hot(education[:, 0], len(EDUCATION) + 1),
            "occupation": occupation_ids(features["occupation"]),
            "crossed": crossed_ids((features["education"], features["occupation"])),
        }

    def train_dataset():
        records = census_records(tf, paths, 256, repeat=True)
        return records.map(lambda features, label: (preprocess(features), label))

    def predict_dataset(rows):
        return census_in_memory(tf, rows, 256).map(preprocess)

    ints = {"age_bucket", "education", "occupation", "crossed"}
    inputs = {
        name: keras.Input(
            shape=(len(EDUCATION) + 1 if name == "education_one_hot" else 1,),
            name=name,
            dtype="int64" if name in ints else "float32",
        )
        for name in (
            "age",
            "hours",
            "age_bucket",
            "education",
            "education_one_hot",
            "occupation",
            "crossed",
        )
    }
    wide_sizes = {"age_bucket": len(AGE_BOUNDARIES) + 1, "education": len(EDUCATION) + 1}
    wide_sizes.update(occupation=HASH_BUCKETS, crossed=HASH_BUCKETS)
    wide = keras.layers.Add()(
        [
            keras.layers.Flatten()(keras.layers.Embedding(n, 1)(inputs[k]))
            for k, n in wide_sizes.items()
        ]
    )
    occupation = keras.layers.Flatten()(
        keras.layers.Embedding(HASH_BUCKETS, 16)(inputs["occupation"])
    )
    deep = keras.layers.Concatenate()(
        [inputs["age"], inputs["hours"], inputs["education_one_hot"], occupation]
    )
    for units in (256, 128, 64):
        deep = keras.layers.Dense(units, activation="relu")(deep)
    logits = keras.layers.Add()([wide, keras.layers.Dense(1)(deep)])
    model = keras.Model(inputs, logits)
    model.compile(
        optimizer=keras.optimizers.Adagrad(0.05),
        loss=keras.losses.BinaryCrossentropy(from_logits=True),
        metrics=[keras.metrics.BinaryAccuracy(threshold=0.0)],
    )
    return keras_figures(
        model, sizes, train_dataset(), train_dataset(), predict_dataset, sizes.predict_rows
    )


def native_cnn(tf, keras, sizes, directory):
    pixels, labels = images(2048)
    dataset = tf.data.Dataset.from_tensor_slices(({"image": pixels}, labels)).repeat().batch(128)
    image = keras.Input(shape=(IMAGE, IMAGE, 1), name="image")
    net = keras.layers.Conv2D(32, 5, padding="same", activation="relu")(image)
    net = keras.layers.MaxPooling2D(2, 2)(net)
    net = keras.layers.Conv2D(64, 5, padding="same", activation="relu")(net)
    net = keras.layers.MaxPooling2D(2, 2)(net)
    net = keras.layers.Dense(256, activation="relu")(keras.layers.Flatten()(net))
    model = keras.Model({"image": image}, keras.layers.Dense(CLASSES)(net))
    model.compile(
        optimizer=keras.optimizers.Adam(1e-3),
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy"],
    )

    def predict_dataset(rows):
        return tf.data.Dataset.from_tensor_slices({"image": pixels[:rows]}).batch(128)

    rows = min(sizes.small_predict_rows, len(pixels))
    return keras_figures(model, sizes, dataset, dataset, predict_dataset, rows)


def native_bert(tf, keras, sizes, directory):
    ids, labels = token_ids(1024)
    dataset = tf.data.Dataset.from_tensor_slices(({"input_ids": ids}, labels)).repeat()
    dataset = dataset.batch(32, drop_remainder=True)

    class PositionEmbedding(keras.layers.Layer):
        def build(self, input_shape):
            self.positions = self.add_weight(shape=(SEQ, HIDDEN), name="positions")

        def call(self, x):
            return x + self.positions

    input_ids = keras.Input(shape=(SEQ,), dtype="int32", name="input_ids")
    x = PositionEmbedding()(keras.layers.Embedding(VOCAB, HIDDEN)(input_ids))
    x = keras.layers.LayerNormalization(epsilon=1e-12)(x)
    for _ in range(LAYERS):
        attention = keras.layers.MultiHeadAttention(HEADS, HIDDEN // HEADS)(x, x)
        x = keras.layers.LayerNormalization(epsilon=1e-12)(x + attention)
        inner = keras.layers.Dense(INTERMEDIATE, activation="gelu")(x)
        x = keras.layers.LayerNormalization(epsilon=1e-12)(x + keras.layers.Dense(HIDDEN)(inner))
    pooled = keras.layers.Dense(HIDDEN, activation="tanh")(x[:, 0])
    model = keras.Model({"input_ids": input_ids}, keras.layers.Dense(2)(pooled))
    model.compile(
        optimizer=keras.optimizers.AdamW(1e-4, weight_decay=0.01, epsilon=1e-6),
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy"],
    )

    def predict_dataset(rows):
        return tf.data.Dataset.from_tensor_slices({"input_ids": ids[:rows]}).batch(32)

    rows = min(sizes.small_predict_rows, len(ids))
    return keras_figures(model, sizes, dataset, dataset, predict_dataset, rows)


def keras_figures(model, sizes, train_dataset, eval_dataset, predict_dataset, predict_rows):
    import tensorflow as tf

    fixed_dataset = repeated(first_batch(tf, train_dataset))()

    def fit(dataset, steps):
        return model.fit(dataset, steps_per_epoch=steps, epochs=1, verbose=0)

    result = figures(
        sizes,
        train=lambda steps: fit(train_dataset, steps),
        train_fixed=lambda steps: fit(fixed_dataset, steps),
        evaluate=lambda: model.evaluate(eval_dataset, steps=sizes.eval_batches, verbose=0),
        count_predictions=lambda rows: len(model.predict(predict_dataset(rows), verbose=0)),
        predict_rows=predict_rows,
    )
    result["op-time ceiling"] = op_time_ceiling(model, sizes, train_dataset)
    return result


def op_time_ceiling(model, sizes, dataset):
    """Training steps/s of the model's own kernels alone: forward, gradients and
    the optimizer's update on one fixed batch, in one compiled loop, with no
    input pipeline, callbacks or framework between steps. No program running
    these kernels trains faster than this on the machine."""
    import tensorflow as tf

    features, labels = next(iter(dataset))

    @tf.function
    def steps(count):
        for _ in tf.range(count):
            with tf.GradientTape() as tape:
                loss = model.compute_loss(features, labels, model(features, training=True))
            variables = model.trainable_variables
            model.optimizer.apply(tape.gradient(loss, variables), variables)

    steps_per_s, _ = steady_and_overhead(
        lambda count: steps(tf.constant(count)),
        long=sizes.long,
        short=sizes.short,
        repeats=sizes.repeats,
    )
    return steps_per_s


# ----------------------------------------------------------------------------


def measure_side(side, workload, sizes):
    if side == "shim+xla":
        # Before TensorFlow runs a function: XLA reads its flags once.
        os.environ["TFESTIMATOR_COMPAT_XLA"] = "1"
    import tensorflow as tf

    tf.get_logger().setLevel("ERROR")
    directory = tempfile.mkdtemp(prefix=f"workload-{workload}-{side}-")
    if side == "native":
        import keras

        native = {"wide_deep": native_wide_deep, "cnn": native_cnn, "bert": native_bert}
        figures = native[workload](tf, keras, sizes, directory)
    else:
        if side == "original":
            estimator_module, tpu = tf.estimator, tf.compat.v1.estimator.tpu
        else:
            import tfestimator_compat
            from tfestimator_compat import tpu

            estimator_module = tfestimator_compat
        if workload == "bert":
            figures = run_bert(tf, estimator_module, tpu, sizes, directory)
        else:
            run = {"wide_deep": run_wide_deep, "cnn": run_cnn}[workload]
            figures = run(tf, estimator_module, sizes, directory)
    # ru_maxrss is in KiB on Linux: this process's peak, so this workload's alone.
    figures["peak RSS MiB"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return figures


WORKLOADS = ("wide_deep", "cnn", "bert")
# Figure name, which of the rounds is best, format.
FIGURES = (
    ("steady steps/s", max, "{:.0f}"),
    ("fixed-batch steps/s", max, "{:.0f}"),
    ("first train s", min, "{:.2f}"),
    ("eval batches/s", max, "{:.0f}"),
    ("predict rows/s", max, "{:.0f}"),
    ("peak RSS MiB", min, "{:.0f}"),
    # Measured by the native program only (its model's kernels; see op_time_ceiling).
    ("op-time ceiling", max, "{:.0f}"),
)


def _best(best, figures):
    """The best of the rounds' figures that came out (NaN: none did)."""
    measured = [f for f in figures if f == f]
    return best(measured) if measured else float("nan")


def _figure(by_side, side, name, best):
    """One side's figure `name`, the best of its rounds (NaN where none measured it)."""
    return _best(best, [r.get(name, float("nan")) for r in by_side[side]])


def _cell(fmt, value):
    """`value` in `fmt`, blank where nothing measured it (the ceiling's other sides)."""
    return "" if value != value else fmt.format(value)


def print_table(results, rounds):
    sides = list(next(iter(results.values())))
    pairs = (("shim", "original"), ("shim", "native"), ("shim+xla", "shim"))
    ratios = [(a, b) for a, b in pairs if a in sides and b in sides]
    header = f"{'workload':11}{'figure':20}" + "".join(f"{side:>11}" for side in sides)
    header += "".join(f"{a + '/' + b:>15}" for a, b in ratios)
    print(header)
    for workload, by_side in results.items():
        for name, best, fmt in FIGURES:
            values = {side: _figure(by_side, side, name, best) for side in sides}
            row = f"{workload:11}{name:20}" + "".join(
                f"{_cell(fmt, values[side]):>11}" for side in sides
            )
            row += "".join(f"{_cell('{:.2f}x', values[a] / values[b]):>15}" for a, b in ratios)
            print(row)
    print(
        f"best of {rounds} alternating rounds, {os.cpu_count()} CPUs; rates: higher is better, "
        "first train s and peak RSS: lower is better"
    )
    for workload, by_side in results.items():
        print_steady_rounds(workload, by_side)
        if "native" not in by_side or "shim" not in by_side:
            continue
        share = _figure(by_side, "shim", "steady steps/s", max) / _figure(
            by_side, "native", "op-time ceiling", max
        )
        print(f"{workload}: the shim trains at {share:.0%} of the op-time ceiling's steps/s")


def print_steady_rounds(workload, by_side):
    """Each round's steady steps/s per side, and the shim's ratio to the original
    round by round: the two ran minutes apart, so their ratio is steadier on a
    noisy machine than the ratio of the bests."""
    steady = {
        side: [r.get("steady steps/s", float("nan")) for r in runs]
        for side, runs in by_side.items()
    }
    print(
        f"{workload} steady steps/s by round: "
        + "; ".join(
            f"{side} " + " ".join(f"{value:.0f}" for value in values)
            for side, values in steady.items()
        )
    )
    ratios = [
        s / o for s, o in zip(steady["shim"], steady.get("original", ())) if s == s and o == o
    ]
    if ratios:
        print(
            f"{workload} shim/original by round: "
            + " ".join(f"{ratio:.2f}" for ratio in ratios)
            + f" (median {statistics.median(ratios):.2f}x)"
        )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--original-python", help="interpreter with tensorflow-estimator 2.15")
    parser.add_argument("--rounds", type=int, help="rounds per side (default 3, 1 with --quick)")
    parser.add_argument("--quick", action="store_true", help="fewer steps and rows")
    parser.add_argument("--workloads", nargs="+", choices=WORKLOADS, default=list(WORKLOADS))
    parser.add_argument(
        "--no-xla", action="store_true", help="leave out the shim+xla side (the compiled step)"
    )
    parser.add_argument(
        "--json-only", nargs=2, metavar=("SIDE", "WORKLOAD"), help=argparse.SUPPRESS
    )
    args = parser.parse_args()
    if args.json_only:
        side, workload = args.json_only
        print(json.dumps(measure_side(side, workload, Sizes(workload, args.quick))))
        return
    rounds = args.rounds or (1 if args.quick else 3)
    extra = ["--quick"] if args.quick else []
    results = {}
    for workload in args.workloads:
        by_side = alternating_rounds(
            __file__,
            args.original_python,
            rounds,
            workload,
            *extra,
            native=True,
            more_sides=() if args.no_xla else ("shim+xla",),
        )
        results[workload] = by_side
    print_table(results, rounds)


if __name__ == "__main__":
    sys.exit(main())
