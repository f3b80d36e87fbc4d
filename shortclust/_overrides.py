"""``--set KEY=VALUE`` overrides of an experiment config (``a.b=value``, YAML values).

Applied by :func:`shortclust.config.load_config` to the raw mapping before it is checked.
"""

from __future__ import annotations

from typing import Any

import yaml

from shortclust.errors import ConfigError, involving


class NoAliasLoader(yaml.SafeLoader):
    """``yaml.safe_load`` refusing aliases (``*name``): a few hundred bytes of nested
    aliases expand to gigabytes (the "billion laughs"), and a config has no need of them."""

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise yaml.composer.ComposerError(
                None, None, f"the alias *{event.anchor} is not accepted (a config writes each "
                "value out; aliases can expand a small file into gigabytes)", event.start_mark)
        return super().compose_node(parent, index)


#: The longest ``--set`` value read (a value is a number, a name or a short list).
MAX_VALUE_CHARS = 10_000


def parse_override(text: str) -> tuple[list[str], Any]:
    """Split ``"a.b=value"`` into ``(["a", "b"], parsed value)``.

    Raises
    ------
    ConfigError
        If there is no ``=`` or the key is empty.
    """
    key, sep, value = text.partition("=")
    parts = [p.strip() for p in key.split(".")]
    if not sep or not all(parts):
        raise ConfigError(
            f"--set {text!r}: expected key=value, e.g. model.params.alpha=0.05 or runs=3"
        )
    return parts, _parse_value(value.strip())


def _parse_value(text: str) -> Any:
    if len(text) > MAX_VALUE_CHARS:
        raise ConfigError(f"--set: a value of {len(text)} characters is longer than "
                          f"{MAX_VALUE_CHARS}: give a shorter value")
    if "*" in text or "&" in text:
        try:
            yaml.load(text, Loader=NoAliasLoader)  # noqa: S506 - a SafeLoader
        except yaml.composer.ComposerError as error:
            raise ConfigError(f"--set {text[:40]!r}: {error.problem}") from None
        except yaml.YAMLError:
            pass
    try:
        return yaml.safe_load(text) if text else None
    except yaml.YAMLError:
        return text


def apply_overrides(raw: dict, overrides: list[str], top_level_keys, params_of) -> None:
    """Apply ``--set`` overrides to the raw config dict.

    ``top_level_keys`` are the config's keys and ``params_of(model_name)`` the parameter
    names of a model: passed in by :mod:`shortclust.config`, which owns the schema, so that
    this module does not import it back.
    """
    TOP_LEVEL_KEYS = tuple(top_level_keys)
    bare_params = []
    for text in overrides:
        with involving(f"--set {text}"):
            parts, value = parse_override(text)
            if len(parts) == 1 and parts[0] not in TOP_LEVEL_KEYS:
                bare_params.append((text, parts[0], value))
                continue
            _set_path(raw, parts, value, text)
            _drop_conflicting_seed_key(raw, parts)
    for text, key, value in bare_params:
        with involving(f"--set {text}"):
            _set_bare_model_param(raw, key, value, text, TOP_LEVEL_KEYS, params_of)


def _set_path(raw: dict, parts: list[str], value: Any, text: str) -> None:
    node = raw
    for depth, part in enumerate(parts[:-1]):
        child = node.setdefault(part, {})
        if not isinstance(child, dict):
            prefix = ".".join(parts[: depth + 1])
            raise ConfigError(
                f"--set {text!r}: '{prefix}' is not a section, cannot set a key inside it"
            )
        node = child
    if value is None and len(parts) > 1 and parts[:2] != ["model", "params"]:
        # A key inside a section set to null is removed, so a stream config can switch to
        # batch_by: time (stream.n_batches=null); a model parameter's None is a value
        # (tol=null in the IC configs), and a top-level null keeps its own meaning.
        node.pop(parts[-1], None)
        return
    node[parts[-1]] = value


def _drop_conflicting_seed_key(raw: dict, parts: list[str]) -> None:
    if parts == ["runs"]:
        raw.pop("seeds", None)
    elif parts == ["seeds"]:
        raw.pop("runs", None)


def _set_bare_model_param(raw: dict, key: str, value: Any, text: str, TOP_LEVEL_KEYS,
                          params_of) -> None:
    model = raw.get("model")
    name = model.get("name") if isinstance(model, dict) else None
    if name is None:
        raise ConfigError(
            f"--set {text!r}: '{key}' is not a config key and the config names no model"
        )
    allowed = params_of(name)
    if key not in allowed:
        raise ConfigError(
            f"--set {text!r}: '{key}' is neither a config key ({', '.join(TOP_LEVEL_KEYS)}) "
            f"nor a parameter of model '{name}' ({', '.join(allowed)})"
        )
    if not isinstance(model.get("params") or {}, dict):
        raise ConfigError(f"--set {text!r}: 'model.params' is not a mapping")
    model["params"] = {**(model.get("params") or {}), key: value}
