"""Test helper: a problem wrapper that counts the rows it evaluates (exact evaluation counting)."""


class Counting:
    """A problem whose evaluate counts the rows it is given."""

    def __init__(self, problem):
        self._problem, self.rows = problem, 0

    def __getattr__(self, name):
        return getattr(self._problem, name)

    def evaluate(self, X):
        self.rows += X.shape[0]
        return self._problem.evaluate(X)
