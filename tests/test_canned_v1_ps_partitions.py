"""The V1 canned models split their variables over ps tasks as the original's did.

`fixtures/ps_partitions/layouts.json` holds what tensorflow-estimator 2.15
would save from the training graphs of a V1 DNN, linear and wide & deep model
with a hidden layer over 256 KiB and an embedding and a linear weight over
64 MiB, with 2 ps tasks in `TF_CONFIG` and with none: each key with its full
shape and the slices of its parts, optimizer slots included
(`dnn/hiddenlayer_0/kernel/t_1/Adagrad`). Building a graph needs no cluster:
the partitioning follows `RunConfig.num_ps_replicas` alone.
"""

import json

import pytest
import tensorflow as tf
from helpers import fixture_generator

import tfestimator_compat as est

fixture = fixture_generator("ps_partitions")
with open(fixture.LAYOUTS) as f:
    LAYOUTS = json.load(f)


@pytest.mark.parametrize("num_ps", [0, fixture.NUM_PS])
@pytest.mark.parametrize("name", fixture.MODELS)
def test_the_train_graph_saves_the_originals_keys_and_slices(name, num_ps):
    layout = fixture.layout(tf.compat.v1.estimator, est.RunConfig, name, num_ps)
    assert layout == LAYOUTS[f"{name}/{num_ps}"]
