"""Tracing a TF1-style `model_fn` into a graph: its arguments, tensors, random ops and seeds."""
