"""PrivPareto (placeholder: being written)."""


def pareto_score(U):
    raise NotImplementedError


def pareto_sensitivity(objectives):
    raise NotImplementedError


def priv_pareto(objectives, epsilon, *, k=1, sensitivity="local", mechanism="exponential", rng=None):
    raise NotImplementedError
