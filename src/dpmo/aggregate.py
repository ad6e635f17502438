"""PrivAgg (placeholder: being written)."""


def aggregate(objectives, weights):
    raise NotImplementedError


def priv_agg(objectives, weights, epsilon, *, k=1, sensitivity="local", mechanism="exponential", rng=None):
    raise NotImplementedError
