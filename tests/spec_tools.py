"""Reading the served OpenAPI 3.0 spec as JSON Schema (jsonschema, Draft 2020-12): ``nullable`` becomes a
``null`` alternative, refs resolve against the whole document. Shared by the spec tests and the recorder of
observed responses (tests/conftest.py)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from jsonschema import Draft202012Validator  # type: ignore[import-untyped]

_DROP = {"discriminator", "example", "examples", "xml", "externalDocs", "deprecated", "readOnly", "writeOnly"}


def to_json_schema(node: Any) -> Any:
    """OpenAPI 3.0 schema object → JSON Schema (recursively)."""
    if isinstance(node, list):
        return [to_json_schema(v) for v in node]
    if not isinstance(node, dict):
        return node
    out = {
        k: to_json_schema(v)
        for k, v in node.items()
        if k not in _DROP and k != "nullable" and not k.startswith("x-")
    }
    if node.get("nullable"):
        if "enum" in out:
            out["enum"] = [*out["enum"], None]
        return {"anyOf": [out, {"type": "null"}]}
    return out


class Spec:
    def __init__(self, spec: dict[str, Any]) -> None:
        self.spec = spec
        self.components = to_json_schema(spec.get("components", {}))
        self._validators: dict[str, Draft202012Validator] = {}

    def validator(self, schema: dict[str, Any]) -> Draft202012Validator:
        key = json.dumps(schema, sort_keys=True)
        if key not in self._validators:
            root = {**to_json_schema(schema), "components": self.components}
            self._validators[key] = Draft202012Validator(root)
        return self._validators[key]

    def errors(self, schema: dict[str, Any], value: Any) -> list[str]:
        out = []
        for error in self.validator(schema).iter_errors(value):
            while error.context:  # the closest alternative of a oneOf/anyOf
                error = max(error.context, key=lambda e: len(e.absolute_path))
            out.append(f"{'/'.join(map(str, error.absolute_path))}: {error.message[:300]}")
        return out

    def operations(self) -> Iterator[tuple[str, str, dict[str, Any]]]:
        for path, item in self.spec["paths"].items():
            for method, op in item.items():
                if method in ("get", "post", "put", "patch", "delete"):
                    yield path, method, op

    def operation_for(self, method: str, path: str) -> tuple[str, dict[str, Any]] | None:
        """The operation serving ``method path`` (a concrete path), or None."""
        for template, m, op in self.operations():
            if m != method.lower():
                continue
            pattern = "^" + re.sub(r"\\{[^}]+\\}", "[^/]+", re.escape(template)) + "/?$"
            if re.match(pattern, path):
                return template, op
        return None

    def resolve(self, node: dict[str, Any]) -> dict[str, Any]:
        while "$ref" in node:
            name = node["$ref"].rsplit("/", 1)[-1]
            node = self.spec["components"]["schemas"][name]
        return node


def problem_codes(response: dict[str, Any]) -> set[str]:
    """The codes a documented problem response lists (``x-codes``)."""
    return set(response.get("x-codes", []))
