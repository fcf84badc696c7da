"""The model_fn's variables: where they live, how they start, how they are written and saved."""
