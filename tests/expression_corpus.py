"""Expressions of the built-in functions (for parity tests) and of other shapes (compile corpus).

BUILTIN_EXPRESSIONS maps a built-in name to (dimension, text): the same function typed in the
expression language. Fixed-dimension forms use x1..xd at that dimension.
"""
from __future__ import annotations

_Y = "(1 + (x{k} + 1)/4)"  # Yao's y_k of penalized 1
_U1 = "sum(100*max(x[i] - 10, 0)**4 + 100*max(-x[i] - 10, 0)**4)"
_U2 = "sum(100*max(x[i] - 5, 0)**4 + 100*max(-x[i] - 5, 0)**4)"
_LM2 = ("0.1*(sin(3*pi*x1)**2 + sum((x[i] - 1)**2*(1 + sin(3*pi*x[i+1])**2)) "
        "+ (x5 - 1)**2*(1 + sin(2*pi*x5)**2))")
_SHEKEL_A = [[4, 4, 4, 4], [1, 1, 1, 1], [8, 8, 8, 8], [6, 6, 6, 6], [3, 7, 3, 7]]
_SHEKEL_C = [0.1, 0.2, 0.2, 0.4, 0.4]
_LANG_A = [[9.681, 0.667], [9.4, 2.041], [8.025, 9.152], [2.196, 0.415], [8.074, 8.777]]
_LANG_C = [0.806, 0.517, 0.1, 0.908, 0.965]


def _shekel() -> str:
    terms = []
    for a, c in zip(_SHEKEL_A, _SHEKEL_C):
        dist = " + ".join(f"(x{j + 1} - {v})**2" for j, v in enumerate(a))
        terms.append(f"1/({dist} + {c})")
    return "-(" + " + ".join(terms) + ")"


def _langerman() -> str:
    terms = []
    for a, c in zip(_LANG_A, _LANG_C):
        dist = f"((x1 - {a[0]})**2 + (x2 - {a[1]})**2)"
        terms.append(f"{c}*exp(-{dist}/pi)*cos(pi*{dist})")
    return "-(" + " + ".join(terms) + ")"


_SHUBERT = "prod(" + " + ".join(f"{j}*cos({j + 1}*x[i] + {j})" for j in range(1, 6)) + ")"

BUILTIN_EXPRESSIONS = {
    "sphere": (6, "sum(x[i]**2)"),
    "schwefel_2_22": (6, "sum(abs(x[i])) + prod(abs(x[i]))"),
    "schwefel_2_21": (6, "max(abs(x[i]))"),
    "rosenbrock": (6, "sum(100*(x[i+1] - x[i]**2)**2 + (x[i] - 1)**2)"),
    "step": (6, "sum(floor(x[i] + 0.5)**2)"),
    "quartic": (6, "sum(i*x[i]**4)"),
    "schwefel_2_26": (6, "418.9829*n - sum(x[i]*sin(sqrt(abs(x[i]))))"),
    "rastrigin": (6, "10*n + sum(x[i]**2 - 10*cos(2*pi*x[i]))"),
    "ackley": (6, "-20*exp(-0.2*sqrt(sum(x[i]**2)/n)) - exp(sum(cos(2*pi*x[i]))/n) + 20 + e"),
    "griewank": (6, "sum(x[i]**2)/4000 - prod(cos(x[i]/sqrt(i))) + 1"),
    "penalized_1": (5, f"pi/n*(10*sin(pi*{_Y.format(k=1)})**2 + sum(((x[i] + 1)/4)**2"
                       f"*(1 + 10*sin(pi*(1 + (x[i+1] + 1)/4))**2)) + ((x5 + 1)/4)**2) + {_U1}"),
    "penalized_2": (5, f"{_LM2} + {_U2}"),
    "schwefel": (6, "-sum(x[i]*sin(sqrt(abs(x[i]))))/n"),
    "branin": (2, "(x2 - 5.1/(4*pi**2)*x1**2 + 5/pi*x1 - 6)**2 + 10*(1 - 1/(8*pi))*cos(x1) + 10"),
    "cosine_mixture": (6, "-0.1*sum(cos(5*pi*x[i])) + sum(x[i]**2)"),
    "dekkers_aarts": (2, "1e5*x1**2 + x2**2 - (x1**2 + x2**2)**2 + 1e-5*(x1**2 + x2**2)**4"),
    "easom": (2, "-cos(x1)*cos(x2)*exp(-((x1 - pi)**2 + (x2 - pi)**2))"),
    "exponential": (6, "-exp(-0.5*sum(x[i]**2))"),
    "goldstein_price": (2, "(1 + (x1 + x2 + 1)**2*(19 - 14*x1 + 3*x1**2 - 14*x2 + 6*x1*x2 + 3*x2**2))"
                           "*(30 + (2*x1 - 3*x2)**2*(18 - 32*x1 + 12*x1**2 + 48*x2 - 36*x1*x2 "
                           "+ 27*x2**2))"),
    "himmelblau": (2, "(x1**2 + x2 - 11)**2 + (x1 + x2**2 - 7)**2"),
    "levy_montalvo_1": (5, f"pi/n*(10*sin(pi*{_Y.format(k=1)})**2 + sum(((x[i] + 1)/4)**2"
                           f"*(1 + 10*sin(pi*(1 + (x[i+1] + 1)/4))**2)) + ((x5 + 1)/4)**2)"),
    "levy_montalvo_2": (5, _LM2),
    "michalewicz": (6, "-sum(sin(x[i])*sin(i*x[i]**2/pi)**20)"),
    "salomon": (6, "1 - cos(2*pi*sqrt(sum(x[i]**2))) + 0.1*sqrt(sum(x[i]**2))"),
    "six_hump_camel": (2, "(4 - 2.1*x1**2 + x1**4/3)*x1**2 + x1*x2 + (-4 + 4*x2**2)*x2**2"),
    "shubert": (3, _SHUBERT),
    "shekel_5": (4, _shekel()),
    "langerman": (2, _langerman()),
    "schaffer_f7": (6, "(sum(sqrt(hypot(x[i], x[i+1]))*(1 + sin(50*hypot(x[i], x[i+1])**0.2)**2))"
                       "/(n - 1))**2"),
}

# Other shapes for the CUDA compile corpus: every function, operator and reduction kind.
EXTRA_EXPRESSIONS = [
    "x1", "-x1 + 3", "x1 % 3 + x2 % -2", "where(x1 > 0, x1, -x1)", "where(x1, 1, 2)",
    "(x1 < x2) + (x1 <= x2) + (x1 >= x2) + (x1 == x2) + (x1 != x2)",
    "tan(x1) + asin(x1/10) + acos(x1/10) + atan(x1) + atan2(x1, x2)",
    "sinh(x1) + cosh(x2) + tanh(x1) + log10(abs(x1) + 1) + ceil(x2) + sign(x1)",
    "min(x1, x2, 0) + max(x1, x2, 1)", "mean(x[i]**3)", "min(x[i] - i)", "sum(x[i] - x[i-1])",
    "prod(1 + x[i]/n)", "x[1]**x[2]", "sum(x[i]**2.5)", "sqrt(sum(x[i]**2)) + max(x[i]) - min(x[i])",
    "log(1 + sum(exp(-x[i]**2)))", "sum(where(x[i] > 0, x[i], 0.5*x[i]**2))",
    "hypot(x1, x2)**2 + sum(i*sin(x[i])**2)/n", "x1**5 + x2**-2 + sum(x[i]**-3) + x1**0",
]
