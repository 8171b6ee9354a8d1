"""MEM-04 read only data path: the detector.

What it reports and what it leaves out is the entry's ``detection`` in strategy.yaml.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from strategylens.detectors import Detector, Finding
from strategylens.model import ProgramModel, line, nodes_of


# a texture object passed in (CUDA's handle, or a library's texture view such as OpenCV's
# cv::cudev::TexturePtr<T>): its reads go through the texture path whatever helper fetches them
TEXTURE_TYPE = re.compile(r"\bcudaTextureObject_t\b|\bTexture\w*Ptr\b|\bTextureObject\b")


class ReadOnlyDataPath(Detector):
    id = "MEM-04"

    def detect(self, model: ProgramModel) -> Iterator[Finding]:
        for fn in model.gpu_functions():
            for p in fn.params:
                if p.is_pointer and p.is_const and p.is_restrict:
                    ln = self._param_line(model, fn, p.name)
                    if ln is not None:
                        yield Finding(ln, ln, 0.8, None, f"const __restrict__ {p.name}")
                elif TEXTURE_TYPE.search(p.type_text) and fn.body is not None and \
                        p.name in model.identifiers(fn.body):
                    ln = self._param_line(model, fn, p.name)
                    if ln is not None:
                        yield Finding(ln, ln, 0.8, None, f"texture object {p.name}")
        for c in model.calls_in():
            f = model.function_of(c.function) if c.function else None
            if f is None or not (f.is_kernel or f.is_device):
                continue
            short = c.name.split("::")[-1]
            if c.category in ("ldg", "texture") or short.startswith("__ldg") or short in (
                    "tex1Dfetch", "tex1D", "tex2D", "tex3D", "tex2DLayered", "texCubemap"):
                yield Finding(c.line, c.line, 0.85, None, c.name)

    @staticmethod
    def _param_line(model, fn, name) -> int | None:
        decl = fn.node.child_by_field_name("declarator")
        for n in nodes_of(decl, "parameter_declaration"):
            if name in model.identifiers(n.child_by_field_name("declarator")):
                return line(n)
        return None
