"""What an Estimator keeps on disk: checkpoints, the Scaffold's savers, event files, text protos."""
