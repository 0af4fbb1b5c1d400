"""A tuning run records which built-in rules it measured against (the hand rules and the
tuned ones the library was built with, unless TRELLIS_TUNED is off): `--check` warns and
`--resume` refuses when those in force now differ, since the sizes a rules file leaves
to the built-in rules, and a run's built-in candidates, would run other choices."""

import json
from pathlib import Path

import pytest

from trellis import cmd_tune, tune_check
from trellis.native import TrellisError

CONFIG = {"np": [4], "colls": ["bcast"], "sizes": [4], "top": 4, "exhaustive": False,
          "refine": True, "extra": []}  # fmt: skip


def write_state(path: Path, config: dict | None) -> None:
    path.with_suffix(path.suffix + ".json").write_text(
        json.dumps({"config": config, "outcomes": []})
    )


def test_the_tuned_setting_changes_the_fingerprint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TRELLIS_TUNED", raising=False)
    on = cmd_tune.builtin_rules_id()
    for word in ("off", " OFF ", "0", "no", "false"):
        monkeypatch.setenv("TRELLIS_TUNED", word)
        assert cmd_tune.builtin_rules_id() != on, word
    monkeypatch.setenv("TRELLIS_TUNED", "yes")
    assert cmd_tune.builtin_rules_id() == on


def test_check_warns_when_the_builtin_rules_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TRELLIS_TUNED", raising=False)
    rules = tmp_path / "t.rules"
    rules.write_text("bcast linear\n")
    assert tune_check.builtin_changed(rules) == ""  # no run beside it: nothing to compare
    write_state(rules, CONFIG)
    assert tune_check.builtin_changed(rules) == ""  # a run from before the field
    write_state(rules, {**CONFIG, "builtin_rules": cmd_tune.builtin_rules_id()})
    assert tune_check.builtin_changed(rules) == ""
    write_state(rules, None)  # a record without its config: nothing to compare
    assert tune_check.builtin_changed(rules) == ""
    write_state(rules, {**CONFIG, "builtin_rules": cmd_tune.builtin_rules_id()})
    monkeypatch.setenv("TRELLIS_TUNED", "off")
    warning = tune_check.builtin_changed(rules)
    assert warning.startswith("trellis tune --check: warning: the built-in rules differ")
    assert "t.rules" in warning


def test_resume_refuses_other_builtin_rules(tmp_path: Path) -> None:
    state = tmp_path / "r.rules.json"
    now = {**CONFIG, "builtin_rules": "0" * 16}
    write_state(tmp_path / "r.rules", {**CONFIG, "builtin_rules": "1" * 16})
    with pytest.raises(TrellisError, match="built-in rules differ"):
        cmd_tune.load_state(state, now)
    write_state(tmp_path / "r.rules", CONFIG)  # before the field: the rest decides
    assert cmd_tune.load_state(state, now) == []
    write_state(tmp_path / "r.rules", {**CONFIG, "colls": ["reduce"]})
    with pytest.raises(TrellisError, match="is of another run"):
        cmd_tune.load_state(state, now)


def test_comments_do_not_change_the_fingerprint(monkeypatch: pytest.MonkeyPatch) -> None:
    texts = {"builtin-rules": "# hand\nbcast linear\n", "tuned-rules": "reduce knomial\n"}
    monkeypatch.setattr(cmd_tune.native, "info", lambda what: texts[what])
    monkeypatch.delenv("TRELLIS_TUNED", raising=False)
    first = cmd_tune.builtin_rules_id()
    texts["builtin-rules"] = "# the hand rules, said otherwise\n\n  bcast linear\n"
    assert cmd_tune.builtin_rules_id() == first
    texts["tuned-rules"] = "reduce binomial\n"
    assert cmd_tune.builtin_rules_id() != first
