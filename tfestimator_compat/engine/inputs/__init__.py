"""How an input_fn's result becomes the dataset the Keras steps read.

TF1 graphs, queues and iterators included: `tf1_input_graph` runs them in a Session, as
the original did.
"""
