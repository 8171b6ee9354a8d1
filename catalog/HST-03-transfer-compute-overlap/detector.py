"""HST-03 transfer compute overlap: the detector.

What it reports and what it leaves out is the entry's ``detection`` in strategy.yaml.
"""

from __future__ import annotations

from collections.abc import Iterator

from strategylens.detectors import Finding, LineDetector
from strategylens.model import Call, LOOP_TYPES, ProgramModel, inside, walk


class TransferComputeOverlap(LineDetector):
    id = "HST-03"
    _DEFAULT = {"0", "NULL", "nullptr", "cudaStreamDefault", "cudaStreamLegacy",
                "cudaStreamPerThread", "(cudaStream_t)0", "0LL"}

    def find(self, model: ProgramModel) -> Iterator[Finding]:
        calls = model.reachable_host_calls
        streams = self._stream_count(model, calls)
        launched_on_stream = [la for la in model.launches_of()
                              if la.stream and la.stream.strip() not in self._DEFAULT]
        if streams < 2 or not launched_on_stream:
            return
        async_copies = []
        used_streams: set[str] = set()
        for c in calls:
            if c.name not in ("cudaMemcpyAsync", "cudaMemcpy2DAsync", "cudaMemcpy3DAsync"):
                continue
            stream_arg = c.args[-1].strip() if c.args else ""
            n_args = {"cudaMemcpyAsync": 5, "cudaMemcpy2DAsync": 8, "cudaMemcpy3DAsync": 2}[c.name]
            if len(c.args) < n_args or stream_arg in self._DEFAULT:
                continue
            async_copies.append(c)
            used_streams.add(stream_arg)
        launch_streams = {la.stream.strip() for la in launched_on_stream}
        indexed = any("[" in s or "[" in self._initialiser(model, async_copies[0], s)
                      for s in used_streams | launch_streams) if async_copies else False
        if not async_copies or (len(used_streams | launch_streams) < 2 and not indexed
                                and not self._in_loop_with_stream_var(model, async_copies)):
            return
        for c in async_copies:
            yield Finding(c.line, c.line, 0.85, intensity=float(streams),
                          note=f"async copy on stream {c.args[-1].strip()} of {streams}")

    @staticmethod
    def _stream_count(model: ProgramModel, calls: list[Call]) -> int:
        total = 0
        for c in calls:
            if not c.name.startswith("cudaStreamCreate"):
                continue
            count = 1
            n = c.node.parent
            while n is not None:
                if n.type in LOOP_TYPES:
                    lp = next((lp for lp in model.loops if lp.node == n), None)
                    if lp is not None and lp.trip_count:
                        count *= lp.trip_count
                    elif lp is not None:
                        count *= 2
                n = n.parent
            total += count
        return total

    @staticmethod
    def _initialiser(model: ProgramModel, call: Call, name: str) -> str:
        """Text of the initialiser of local ``name`` in the function of ``call`` ('' if none)."""
        fn = model.function_of(call.function)
        if fn is None or fn.body is None:
            return ""
        for n in walk(fn.body):
            if n.type == "init_declarator" and \
                    model.root_identifier(n.child_by_field_name("declarator")) == name:
                return model.text_of(n.child_by_field_name("value"))
        return ""

    @staticmethod
    def _in_loop_with_stream_var(model: ProgramModel, copies: list[Call]) -> bool:
        """A copy in a loop whose stream variable is chosen per iteration."""
        for c in copies:
            for lp in model.host_loops():
                if inside(c.node, lp.node) and lp.var and lp.var in c.args[-1]:
                    return True
        return False
