"""GPU: every objective functor against the float64 NumPy formula; the in-kernel generator.

Tolerances. float64 functors must agree with the NumPy formula to 1e-10 relative (batch norm).
float32 functors are evaluated at the same (float32-rounded) points and compared with the float64
formula at those points: the relative error of the batch, ||f32 - f64|| / ||f64||, must be below
2e-5, i.e. about 170 float32 ulps -- rounding of a sum of at most a few dozen terms, each a few
correctly rounded operations (no functor error hides under it: a wrong term is off by O(1)). Points
where the float64 value is not finite must be non-finite on the GPU too.
"""
from __future__ import annotations

import numpy as np
import pytest

from kernels import loader
from solvers.problems.base import get_problem, problem_definitions

pytestmark = pytest.mark.gpu

TEST_KERNELS = r"""
template <typename F, typename T>
__global__ void t_eval(const T* X, long long n, int d, T* out) {
    const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i >= n) return;
    const StridedPoint<T> x = {X + i, n};
    out[i] = F::template eval<T>(x, d);
}
__global__ void t_philox(const unsigned int* in, unsigned int* out, int k) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= k) return;
    MwWords c = {in[6 * t], in[6 * t + 1], in[6 * t + 2], in[6 * t + 3]};
    const MwWords r = mw_philox4x32_10(c, in[6 * t + 4], in[6 * t + 5]);
    out[4 * t] = r.x; out[4 * t + 1] = r.y; out[4 * t + 2] = r.z; out[4 * t + 3] = r.w;
}
template <typename F, typename T>
__global__ void t_pair(const T* X, long long n, int d, int jj, T va, T vb, T* paired, T* alone) {
    const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i >= n) return;
    const StridedPoint<T> x = {X + i, n};
    MwPair<F, T, StridedPoint<T>>::eval(x, d, jj, va, vb, paired[2 * i], paired[2 * i + 1]);
    alone[2 * i] = F::template eval<T>(PatchedPoint<T>{X + i, n, jj, va}, d);
    alone[2 * i + 1] = F::template eval<T>(PatchedPoint<T>{X + i, n, jj, vb}, d);
}
template <typename T>
__global__ void t_points(const T* lower, const T* upper, long long n, int d, unsigned long long seed,
                         unsigned long long draw, T* filled, T* generated) {
    const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i >= n) return;
    const MwRng rng(seed, (unsigned long long)i, MW_STREAM_SAMPLE);
    mw_fill_uniform(rng, draw, lower, upper, filled + i, n, d);
    const MwRandomPoint<T> x(rng, draw, lower, upper);
    for (int j = d - 1; j >= 0; --j) generated[(long long)j * n + i] = x[j];  // out of order on purpose
}
"""


def _cases():
    out = []
    for definition in problem_definitions():
        if not definition.cuda_functor:
            continue
        if definition.dims is not None:
            dims = list(definition.dims)
        else:
            dims = sorted({d for d in (definition.default_dim, 7, 30) if d >= definition.min_dim})
        for dim in dims:
            out.append((definition.name, dim))
    return out


@pytest.fixture(scope="module")
def module(cupy):
    functors = loader.functor_names()
    exprs = [f"t_eval<{f}, {t}>" for f in functors for t in ("float", "double")]
    exprs += [f"t_pair<{f}, {t}>" for f in functors for t in ("float", "double")]
    exprs += ["t_points<float>", "t_points<double>"]
    mod = cupy.RawModule(code=loader.header_text() + TEST_KERNELS, options=loader.options(False),
                         name_expressions=exprs)
    return mod


def _evaluate(cupy, module, functor, X, dtype):
    n, d = X.shape
    XT = cupy.asarray(np.ascontiguousarray(X.T.astype(dtype)))
    out = cupy.empty(n, dtype=dtype)
    kernel = module.get_function(f"t_eval<{functor}, {'float' if dtype == np.float32 else 'double'}>")
    kernel(((n + 127) // 128,), (128,), (XT, np.int64(n), np.int32(d), out))
    return out.get()


@pytest.mark.parametrize("name,dim", _cases())
def test_functor_matches_numpy_formula(cupy, module, name, dim):
    problem = get_problem(name, dim)
    functor = problem.definition.cuda_functor
    rng = np.random.default_rng(1234)
    X = problem.lower + (problem.upper - problem.lower) * rng.random((2000, dim))
    if problem.x_min is not None:
        X[0] = problem.x_min
    ref64 = problem.evaluate(X)
    got64 = _evaluate(cupy, module, functor, X, np.float64)
    finite = np.isfinite(ref64)
    assert np.array_equal(finite, np.isfinite(got64)), f"{name}: finiteness differs"
    err64 = np.linalg.norm(got64[finite] - ref64[finite]) / max(np.linalg.norm(ref64[finite]), 1e-300)
    assert err64 < 1e-10, f"{name} d={dim}: float64 relative error {err64:.3g}"

    X32 = X.astype(np.float32)
    ref32 = problem.evaluate(X32.astype(np.float64))  # the exact formula at the float32 points
    got32 = _evaluate(cupy, module, functor, X32, np.float32).astype(np.float64)
    finite = np.isfinite(ref32) & (np.abs(ref32) < 1e30)
    err32 = np.linalg.norm(got32[finite] - ref32[finite]) / max(np.linalg.norm(ref32[finite]), 1e-300)
    assert err32 < 2e-5, f"{name} d={dim}: float32 relative error {err32:.3g} (rounding level is < 2e-5)"
    if problem.f_min is not None and problem.x_min is not None:
        assert abs(got64[0] - problem.f_min) <= 1e-8 * max(1.0, abs(problem.f_min)), (name, got64[0])


def test_philox_known_answers_on_the_device(cupy):
    mod = cupy.RawModule(code=loader.header_text() + TEST_KERNELS, options=loader.options(False),
                         name_expressions=["t_philox"])
    words = np.array([[0, 0, 0, 0, 0, 0], [0xFFFFFFFF] * 6,
                      [0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344, 0xA4093822, 0x299F31D0]],
                     dtype=np.uint32)
    out = cupy.zeros(12, dtype=np.uint32)
    mod.get_function("t_philox")((1,), (32,), (cupy.asarray(words.ravel()), out, np.int32(3)))
    got = [" ".join(f"{w:08x}" for w in row) for row in out.get().reshape(3, 4)]
    assert got == ["6627e8d5 e169c58d bc57ac4c 9b00dbd8", "408f276d 41c83b0e a20bc7c6 6d5451fd",
                   "d16cfe09 94fdcceb 5001e420 24126ea1"]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_uniform_points_in_box_and_generated_equals_filled(cupy, module, dtype):
    n, d = 4096, 11
    lower = cupy.asarray(np.linspace(-3, 1, d), dtype=dtype)
    upper = lower + cupy.asarray(np.linspace(0.5, 7, d), dtype=dtype)
    filled = cupy.empty((d, n), dtype=dtype)
    generated = cupy.empty((d, n), dtype=dtype)
    name = f"t_points<{'float' if dtype == np.float32 else 'double'}>"
    module.get_function(name)(((n + 127) // 128,), (128,), (lower, upper, np.int64(n), np.int32(d),
                                                           np.uint64(987654321), np.uint64(5),
                                                           filled, generated))
    a, b = filled.get(), generated.get()
    assert np.array_equal(a, b)
    lo, hi = lower.get()[:, None], upper.get()[:, None]
    assert np.all(a >= lo) and np.all(a <= hi)
    u = (a - lo) / (hi - lo)
    # uniform: mean 1/2, variance 1/12, every walker and coordinate different
    assert abs(u.mean() - 0.5) < 0.01 and abs(u.var() - 1 / 12) < 0.005
    # every walker got its own point (single coordinates may collide: 24-bit uniforms, birthday bound)
    assert len(np.unique(a.T, axis=0)) == n


@pytest.mark.parametrize("functor", sorted(loader.fold_functors()) + ["Rosenbrock"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_pair_evaluation_equals_two_patched_evaluations(cupy, module, functor, dtype):
    """MwPair (pattern search's two trials of a coordinate in one pass, issue 14) gives exactly the
    values of the two patched points evaluated alone, at every patched coordinate."""
    n, d = 512, 9
    rng = np.random.default_rng(7)
    X = cupy.asarray(np.ascontiguousarray(rng.uniform(-4, 4, (d, n)).astype(dtype)))
    ctype = "float" if dtype == np.float32 else "double"
    kernel = module.get_function(f"t_pair<{functor}, {ctype}>")
    for jj in range(d):
        paired = cupy.empty(2 * n, dtype=dtype)
        alone = cupy.empty(2 * n, dtype=dtype)
        kernel(((n + 127) // 128,), (128,), (X, np.int64(n), np.int32(d), np.int32(jj), dtype(1.25),
                                             dtype(-3.5), paired, alone))
        assert np.array_equal(paired.get(), alone.get()), (functor, jj)


@pytest.mark.parametrize("name", ["rastrigin", "ackley", "griewank", "step"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_evaluation_only_folded_values_equal_evaluating_its_points(cupy, module, name, dtype):
    """Evaluation-only folds a fold functor's coordinates as it draws them (issue 14): each walker's
    last value is exactly the functor evaluated at the point regenerated from its counter."""
    from tests.gpu_run import run

    algo, state = run(cupy, "evaluation_only", {}, [3, 2], problem=name, dtype=dtype, dim=7, walkers=700)
    assert algo.stage_bytes() == 0  # folds need no stage
    points = algo.points(state, np.arange(700)).get().astype(dtype)
    got = _evaluate(cupy, module, algo.problem.definition.cuda_functor, points, np.dtype(dtype).type)
    assert np.array_equal(state.f.get(), got)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_evaluation_only_across_the_draw_index_high_word(cupy, module, dtype):
    """Draw indices of a launch that cross 2^32 take the general generator, those past it the
    high-word one (random.cuh: MwRngHigh, high word 1): both fold the points regenerated from their
    counters, as below 2^32."""
    from tests.gpu_run import run

    algo, state = run(cupy, "evaluation_only", {}, [1], problem="rastrigin", dtype=dtype, dim=7, walkers=300)
    per_point = -(-7 // (4 if dtype == "float32" else 2))
    state.iteration = 2**32 // per_point - 2  # the next launch's rounds straddle draw 2^32
    for _ in range(2):  # across the boundary, then wholly past it
        algo.step(state, 3)
        points = algo.points(state, np.arange(300)).get().astype(dtype)
        got = _evaluate(cupy, module, algo.problem.definition.cuda_functor, points, np.dtype(dtype).type)
        assert np.array_equal(state.f.get(), got)
