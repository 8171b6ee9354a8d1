"""The strategylens task format: ``task.yaml`` (validated field by field), ``gen.py`` (a seeded
generator), ``reference.c`` and ``solutions/`` (see docs/task-format.md)."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import yaml

from strategylens.dtypes import DTYPES, np_dtype
from strategylens.tasks.task import (DOMAINS, MODES, SIZES, Correctness, Param, Task, TaskError,
                                     TaskFormat, length_names)

NAME_RE = re.compile(r"^[a-z0-9_]+$")


def require(cond: bool, file: Path, fieldname: str, problem: str) -> None:
    if not cond:
        raise TaskError(f"{file}: field '{fieldname}': {problem}")


def parse_signature(signature: str) -> list[tuple[str, str, bool, bool]]:
    """Split a C prototype into (name, base type, is_pointer, is_const) per parameter."""
    m = re.fullmatch(r"\s*void\s+solution_compute\s*\((.*)\)\s*;?\s*", signature, re.DOTALL)
    if not m:
        raise ValueError("not of the form 'void solution_compute(...)'")
    out = []
    for part in m.group(1).split(","):
        part = " ".join(part.replace("*", " * ").split())
        pm = re.fullmatch(r"((?:const )?)([A-Za-z_][A-Za-z0-9_ ]*?)\s*(\*?)\s*(?:const )?"
                          r"([A-Za-z_][A-Za-z0-9_]*)", part)
        if not pm:
            raise ValueError(f"cannot read parameter {part!r}")
        out.append((pm.group(4), pm.group(2).strip(), bool(pm.group(3)), bool(pm.group(1))))
    return out


class OwnFormat(TaskFormat):
    name = "strategylens"
    marker = "task.yaml"
    reference_names = ("reference.c",)
    content_files = ("task.yaml", "gen.py", "reference.c")
    lengths_known = True

    def load(self, folder: Path) -> Task:
        """Load and validate ``folder/task.yaml``.

        Raises
        ------
        TaskError
            Naming the file and the field when task.yaml is missing or invalid.
        """
        file = folder / "task.yaml"
        try:
            doc = yaml.safe_load(file.read_text())
        except yaml.YAMLError as exc:
            raise TaskError(f"{file}: not valid YAML: {exc}") from exc
        require(isinstance(doc, dict), file, "<top>", "must be a mapping")
        for key in ("id", "name", "domain", "summary", "description", "signature", "params",
                    "sizes", "seed", "correctness"):
            require(key in doc, file, key, "missing")
        require(isinstance(doc["id"], str) and bool(NAME_RE.match(doc["id"])), file, "id",
                "must match [a-z0-9_]+")
        require(doc["id"] == folder.name, file, "id",
                f"{doc['id']!r} differs from folder {folder.name!r}")
        require(doc["domain"] in DOMAINS, file, "domain",
                f"{doc['domain']!r} is not one of {', '.join(DOMAINS)}")
        for key in ("name", "summary", "description", "signature"):
            require(isinstance(doc[key], str) and doc[key].strip() != "", file, key,
                    "must be a non-empty string")
        require(isinstance(doc["seed"], int), file, "seed", "must be an integer")
        params = _params(doc["params"], file)
        _check_signature(doc["signature"], params, file)

        sizes = doc["sizes"]
        require(isinstance(sizes, dict) and set(sizes) == set(SIZES), file, "sizes",
                "must hold exactly small, medium and large")
        for s in SIZES:
            require(isinstance(sizes[s], dict), file, f"sizes.{s}", "must be a mapping")
        return Task(id=doc["id"], name=doc["name"], domain=doc["domain"], summary=doc["summary"],
                    description=doc["description"], signature=" ".join(doc["signature"].split()),
                    params=params, sizes={s: dict(sizes[s]) for s in SIZES},
                    seed=int(doc["seed"]), correctness=_correctness(doc["correctness"], params, file),
                    path=folder.resolve(), format=self)

    def generate(self, task: Task, size: str, seed_offset: int) -> dict:
        """Run ``gen.py``'s ``generate(params, seed)``; scalars it does not return come from
        the size's parameters; every in/inout array is checked against the task."""
        params = dict(task.sizes[size])
        gen_path = task.path / "gen.py"
        spec = importlib.util.spec_from_file_location(f"_strategylens_gen_{task.id}", gen_path)
        module = importlib.util.module_from_spec(spec)
        try:
            spec.loader.exec_module(module)
            inputs = module.generate(dict(params), int(task.seed) + int(seed_offset))
        except Exception as exc:
            raise TaskError(f"{gen_path}: generate failed: {exc!r}") from exc
        if not isinstance(inputs, dict):
            raise TaskError(f"{gen_path}: generate must return a dict, got {type(inputs).__name__}")
        for k, v in params.items():
            inputs.setdefault(k, v)
        for p in task.params:
            if p.kind == "scalar":
                if p.name not in inputs:
                    raise TaskError(f"{gen_path}: scalar {p.name!r} neither generated nor in "
                                    f"sizes.{size}")
                kind = np_dtype(p.dtype).kind
                inputs[p.name] = float(inputs[p.name]) if kind == "f" else int(inputs[p.name])
        for p in task.params:
            if p.kind == "array" and p.direction in ("in", "inout"):
                if p.name not in inputs:
                    raise TaskError(f"{gen_path}: array {p.name!r} not generated")
                task.check_array(p, inputs[p.name], inputs, str(gen_path))
        return inputs


OWN = OwnFormat()


def _params(raw_params, file: Path) -> list[Param]:
    params: list[Param] = []
    require(isinstance(raw_params, list) and raw_params, file, "params", "must be a non-empty list")
    for i, raw in enumerate(raw_params):
        where = f"params[{i}]"
        require(isinstance(raw, dict), file, where, "must be a mapping")
        unknown = set(raw) - {"name", "kind", "dtype", "direction", "length"}
        require(not unknown, file, where, f"unknown keys {sorted(unknown)}")
        require(isinstance(raw.get("name"), str), file, f"{where}.name", "missing")
        require(raw.get("kind") in ("array", "scalar"), file, f"{where}.kind",
                "must be 'array' or 'scalar'")
        require(raw.get("dtype") in DTYPES, file, f"{where}.dtype",
                f"{raw.get('dtype')!r} is not one of {', '.join(DTYPES)}")
        direction = raw.get("direction", "in")
        require(direction in ("in", "out", "inout"), file, f"{where}.direction",
                "must be in, out or inout")
        require(raw["kind"] == "array" or direction == "in", file, f"{where}.direction",
                "a scalar is always 'in'")
        length = raw.get("length")
        if raw["kind"] == "array":
            require(length is not None, file, f"{where}.length", "an array needs a length")
            length = str(length)
            try:
                length_names(length)
            except ValueError as exc:
                require(False, file, f"{where}.length", str(exc))
        params.append(Param(raw["name"], raw["kind"], raw["dtype"], direction, length))
    names = [p.name for p in params]
    require(len(set(names)) == len(names), file, "params", "duplicate names")
    return params


def _correctness(corr, params: list[Param], file: Path) -> Correctness:
    require(isinstance(corr, dict), file, "correctness", "must be a mapping")
    require(corr.get("mode") in MODES, file, "correctness.mode",
            f"{corr.get('mode')!r} is not one of {', '.join(MODES)}")
    if corr["mode"] == "numeric":
        for k in ("atol", "rtol"):
            require(isinstance(corr.get(k), (int, float)) and corr[k] >= 0, file,
                    f"correctness.{k}", "numeric mode needs a number >= 0")
    tight = corr.get("tight") or {}
    require(isinstance(tight, dict) and set(tight) <= {"atol", "rtol"}, file,
            "correctness.tight", "must be a mapping with atol and/or rtol")
    outputs_field = corr.get("outputs")
    out_names = [p.name for p in params if p.kind == "array" and p.direction != "in"]
    require(bool(out_names), file, "params", "no out or inout array")
    if outputs_field is not None:
        require(isinstance(outputs_field, list) and set(outputs_field) <= set(out_names), file,
                "correctness.outputs", f"must list out arrays among {out_names}")
    noise = corr.get("noise_label")
    require(noise is None or isinstance(noise, int), file, "correctness.noise_label",
            "must be an integer")
    return Correctness(mode=corr["mode"], atol=float(corr.get("atol", 0.0)),
                       rtol=float(corr.get("rtol", 0.0)), tight=dict(tight),
                       outputs=outputs_field, noise_label=noise)


def _check_signature(signature: str, params: list[Param], file: Path) -> None:
    try:
        parts = parse_signature(signature)
    except ValueError as exc:
        raise TaskError(f"{file}: field 'signature': {exc}") from exc
    require([p[0] for p in parts] == [p.name for p in params], file, "params",
            f"names {[p.name for p in params]} differ from the signature's "
            f"{[p[0] for p in parts]}")
    for (name, ctype, is_ptr, is_const), p in zip(parts, params, strict=True):
        where = f"params[{params.index(p)}]"
        require(ctype in DTYPES[p.dtype].c_names, file, f"{where}.dtype",
                f"{p.dtype} does not match C type {ctype!r} of {name}")
        require(is_ptr == (p.kind == "array"), file, f"{where}.kind",
                f"{p.kind} does not match {'pointer' if is_ptr else 'value'} {name}")
        if is_ptr:
            require(is_const == (p.direction == "in"), file, f"{where}.direction",
                    f"{p.direction} does not match {'const ' if is_const else ''}pointer {name}")

