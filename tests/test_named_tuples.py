"""The value types on the start-up path are named tuples (benchmarks/README.md, "status"): each must
declare its fields once more as annotations, in order, and no class attribute may hide a field (an
`x: int = 0` in the class body would replace the tuple's `x` with the constant 0 on every instance)."""

from __future__ import annotations

import importlib
import pkgutil

import planview


def _named_tuples() -> list[type]:
    found: dict[str, type] = {}
    for info in pkgutil.walk_packages(planview.__path__, "planview."):
        if info.name.endswith("__main__"):  # runs the CLI when imported
            continue
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and issubclass(value, tuple)
                and hasattr(value, "_fields")
                and value.__module__ == module.__name__
            ):
                found[f"{value.__module__}.{value.__qualname__}"] = value
    return list(found.values())


def test_the_start_up_value_types_are_named_tuples() -> None:
    from planview.approval.ledger_format import Head
    from planview.approval.records import ApprovalEntry, ApprovalRecord, PlanStatus, Revocation
    from planview.home import HomeLayout
    from planview.plan.store import PlanInfo, WrittenPlan

    types = _named_tuples()
    for cls in (
        Head,
        ApprovalRecord,
        Revocation,
        ApprovalEntry,
        PlanStatus,
        HomeLayout,
        PlanInfo,
        WrittenPlan,
    ):
        assert cls in types


def test_every_named_tuple_annotates_its_fields_in_order_and_hides_none() -> None:
    types = _named_tuples()
    subclasses = [cls for cls in types if "_fields" not in cls.__dict__]  # collections.namedtuple bases
    assert len(subclasses) >= 8
    for cls in subclasses:
        own = cls.__dict__.get("__annotations__", {})
        if own:  # a subclass that documents its fields
            assert tuple(own) == cls._fields, cls
        for name in cls._fields:
            assert name not in cls.__dict__, f"{cls.__qualname__}.{name} is hidden by a class attribute"
        assert cls.__dict__.get("__slots__") == (), f"{cls.__qualname__} needs __slots__ = () to stay frozen"


def test_a_named_tuple_record_is_frozen() -> None:
    from pathlib import Path

    import pytest

    from planview.home import HomeLayout

    layout = HomeLayout(Path("/x"))
    with pytest.raises(AttributeError):
        layout.root = Path("/y")  # type: ignore[misc]
    with pytest.raises(AttributeError):
        layout.extra = 1  # type: ignore[attr-defined]
    assert layout.plans == Path("/x/plans")


def test_a_record_inside_an_event_is_written_as_an_object_in_run_json() -> None:
    # `planview run --json` writes events; an approval record inside one is a named tuple now and
    # must stay a JSON object with its field names, not turn into a bare list.
    from dataclasses import dataclass

    from planview.approval.records import ApprovalRecord
    from planview.commands.run import _record

    record = ApprovalRecord(1, "p.md", "c" * 64, "f" * 64, "artifact:x", 3, "me", "t", None, "p" * 64, "test")

    @dataclass(frozen=True)
    class Approved:
        record: ApprovalRecord

    out = _record(Approved(record))
    assert out["type"] == "approved"
    assert out["record"]["packet_sha256"] == "p" * 64 and out["record"]["channel"] == "test"
