"""``SingleResultOut`` as JSON without building the model: the answer of every ``POST /validate``.

The result is the engine's own ``to_dict()`` (or the stored copy of it), already in the shape of the model, so
validating it into pydantic objects only to dump them again cost a twentieth of a quick validation's CPU.
The layout (fields in declaration order by alias, defaults for absent ones, then a model's extra fields in
the order given, none for a model that ignores extras) is read from the models themselves, so the bytes are
the ones ``SingleResultOut.model_validate(...).model_dump_json(by_alias=True)`` writes; a test compares them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import orjson
from pydantic.fields import FieldInfo

from web.schemas.base import Out
from web.schemas.results import CheckOut, MetadataOut, SingleResultOut

_REQUIRED = object()


@dataclass(frozen=True)
class _Layout:
    fields: tuple[tuple[str, Any], ...]  # (alias, default or _REQUIRED)
    keeps_extra: bool
    optional: frozenset[str] = frozenset()  # fields left out when None (``exclude_if``)

    def ordered(self, data: Mapping[str, Any]) -> dict[str, Any]:
        """A missing required field raises KeyError, as the model would refuse it (a 500 either way)."""
        body = {
            alias: data[alias] if default is _REQUIRED else data.get(alias, default)
            for alias, default in self.fields
            if not (alias in self.optional and data.get(alias) is None)
        }
        if self.keeps_extra:
            body.update((name, value) for name, value in data.items() if name not in body)
        return body


def _default(info: FieldInfo) -> Any:
    if info.is_required():
        return _REQUIRED
    return info.default_factory() if info.default_factory is not None else info.default  # type: ignore[call-arg]


def _layout(model: type[Out]) -> _Layout:
    fields = tuple((info.alias or name, _default(info)) for name, info in model.model_fields.items())
    optional = frozenset(info.alias or name for name, info in model.model_fields.items() if info.exclude_if)
    return _Layout(fields, model.model_config.get("extra") == "allow", optional)


_RESULT, _CHECK, _METADATA = _layout(SingleResultOut), _layout(CheckOut), _layout(MetadataOut)


def single_result_json(result: Mapping[str, Any], metadata: Mapping[str, Any]) -> bytes:
    """``result`` (spec 2.1, camelCase) with the request's ``metadata`` (spec 2.3), as ``SingleResultOut``."""
    checks = {name: _CHECK.ordered(check) for name, check in result["checks"].items()}
    body = _RESULT.ordered({**result, "checks": checks, "metadata": _METADATA.ordered(metadata)})
    return orjson.dumps(body, option=orjson.OPT_UTC_Z | orjson.OPT_NON_STR_KEYS)
