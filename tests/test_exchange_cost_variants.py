"""scripts/exchange_cost.py's variants patch the kernels' exact text: each still finds it (no GPU).

A variant whose text is gone would measure the committed kernels under its own name; those kept only
as the record of a measurement are listed in RETIRED, and must stay stale (or leave the list).
"""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("exchange_cost", ROOT / "scripts" / "exchange_cost.py")
exchange_cost = importlib.util.module_from_spec(spec)
spec.loader.exec_module(exchange_cost)


@pytest.mark.parametrize("variant", sorted(set(exchange_cost.VARIANTS) - exchange_cost.RETIRED))
def test_variant_edits_find_their_text(variant):
    assert exchange_cost.stale_edits(variant) == []


@pytest.mark.parametrize("variant", sorted(exchange_cost.RETIRED))
def test_retired_variants_are_stale_and_refused(variant):
    assert exchange_cost.stale_edits(variant)
    with pytest.raises(SystemExit, match="retired"):
        exchange_cost.use(variant)


def test_every_variant_has_its_cases():
    assert set(exchange_cost.VARIANTS) <= set(exchange_cost.PER_VARIANT)
