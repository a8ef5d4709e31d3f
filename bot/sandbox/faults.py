"""Fault injection for the fake Discord: what a real deployment meets around the bot.

Each REST call is of a *route kind* (:func:`route_kind`): ``callback`` (the first answer to an
interaction), ``followup`` (a follow-up message), ``followup_edit`` (an edit of the answer or a
follow-up), ``post`` (a channel message), ``edit`` (an edit of one), ``thread`` (a thread
created), ``thread_member``, ``channel_edit`` (archiving a thread), ``fetch`` (any GET),
``commands`` and ``other``. A :class:`FaultPlan` decides, per call, whether it fails and how:

* :meth:`FaultPlan.script`: the next calls of a kind get these faults, in order (``OK`` lets
  one through), then the kind behaves again;
* :meth:`FaultPlan.rate`: each call of a kind fails with a probability, with one of the
  faults given (drawn from a random generator per kind, seeded: a run is repeatable);
* the faults (:class:`Fault`): a 5xx (``Fault.error(503)``), a 429 with ``retry_after`` as
  Discord sends it (``Fault.rate_limited(1.5)``: the ``Via`` header, without which discord.py
  takes a 429 for a Cloudflare ban, and ``Retry-After``), and a slow answer
  (``Fault.slow(30)``: the call is carried out after that long, as Discord does with a request
  it got, whether or not the client still waits). ``Fault.error(500, applied=True)`` carries
  the call out and answers 500 all the same: the answer was lost on the way back.

discord.py retries some of these by itself: 500, 502, 504 and 524 on channel routes (5 tries,
sleeping 1, 3, 5, 7 s), every 5xx on interaction and webhook routes, and a 429 after its
``retry_after``; a 503 on a channel route, a 6th failure, or a slow answer are the bot's to
handle.

Dropped gateway connections are :meth:`FakeDiscord.disconnect_all` (the bot resumes) and
:meth:`FakeDiscord.invalidate_sessions` (it must identify again); :class:`GatewayChaos` does
one or the other every so often, seeded as well.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

if TYPE_CHECKING:
    from .discord_state import RequestRecord

__all__ = ["OK", "ROUTE_KINDS", "Fault", "FaultPlan", "GatewayChaos", "InjectedFault",
           "route_kind"]

ROUTE_KINDS = ("callback", "followup", "followup_edit", "post", "edit", "thread",
               "thread_member", "channel_edit", "fetch", "commands", "other")
"""Every route kind :func:`route_kind` may return."""

_KINDS: list[tuple[str, re.Pattern[str], str]] = [
    ("POST", re.compile(r"/interactions/\d+/[^/]+/callback"), "callback"),
    ("POST", re.compile(r"/webhooks/\d+/[^/]+"), "followup"),
    ("PATCH", re.compile(r"/webhooks/\d+/[^/]+/messages/[^/]+"), "followup_edit"),
    ("POST", re.compile(r"/channels/\d+/messages"), "post"),
    ("PATCH", re.compile(r"/channels/\d+/messages/\d+"), "edit"),
    ("POST", re.compile(r"/channels/\d+(/messages/\d+)?/threads"), "thread"),
    ("PUT", re.compile(r"/channels/\d+/thread-members/\d+"), "thread_member"),
    ("PATCH", re.compile(r"/channels/\d+"), "channel_edit"),
]


def route_kind(method: str, path: str) -> str:
    """The kind of a REST call (``path`` without the ``/api/v10`` prefix)."""
    if path.startswith("/applications/"):
        return "commands"
    for verb, pattern, kind in _KINDS:
        if method == verb and pattern.fullmatch(path):
            return kind
    if method == "GET":
        return "fetch"
    return "other"


@dataclass(frozen=True)
class Fault:
    """One injected fault (or ``OK``: none, in a script)."""

    what: Literal["ok", "error", "rate_limited", "slow"]
    status: int = 0
    retry_after: float = 0.0
    delay: float = 0.0
    applied: bool = False
    """For an error: the call is carried out, only its answer is an error."""

    @classmethod
    def error(cls, status: int = 503, *, applied: bool = False) -> Fault:
        """A 5xx answer (``applied``: after carrying the call out)."""
        return cls("error", status=status, applied=applied)

    @classmethod
    def rate_limited(cls, retry_after: float = 1.0) -> Fault:
        """A 429 with ``retry_after`` seconds, as Discord sends it."""
        return cls("rate_limited", status=429, retry_after=retry_after)

    @classmethod
    def slow(cls, delay: float) -> Fault:
        """The answer (and the call itself) comes ``delay`` seconds late."""
        return cls("slow", delay=delay)

    def __str__(self) -> str:
        if self.what == "error":
            return f"{self.status}{' (applied)' if self.applied else ''}"
        if self.what == "rate_limited":
            return f"429 retry_after={self.retry_after:g}"
        if self.what == "slow":
            return f"slow {self.delay:g}s"
        return "ok"


OK = Fault("ok")
"""A call let through, in a script."""

Match = Callable[["RequestRecord"], bool]


@dataclass
class _Rule:
    kind: str
    faults: list[Fault]
    rate: float | None  # None: a script, consumed in order
    match: Match | None

    def applies(self, kind: str, record: RequestRecord) -> bool:
        return (self.kind in (kind, "*")) and (self.match is None or self.match(record))


@dataclass(frozen=True)
class InjectedFault:
    """A fault the plan injected: on which call."""

    kind: str
    fault: Fault
    method: str
    path: str
    at: float


@dataclass
class FaultPlan:
    """Which REST calls fail, and how (see the module's docstring). ``seed`` makes the
    random faults repeatable: each route kind draws from a generator of its own, so one
    kind's traffic doesn't change another's faults."""

    seed: int = 0
    injected: list[InjectedFault] = field(default_factory=list)
    _rules: list[_Rule] = field(default_factory=list)
    _rngs: dict[str, random.Random] = field(default_factory=dict)

    def script(self, kind: str, *faults: Fault, match: Match | None = None) -> FaultPlan:
        """The next calls of ``kind`` (``"*"``: any) that ``match`` get ``faults`` in order."""
        if kind != "*" and kind not in ROUTE_KINDS:
            raise ValueError(f"unknown route kind {kind!r}; one of {ROUTE_KINDS}")
        self._rules.insert(0, _Rule(kind, list(faults), None, match))
        return self

    def rate(self, kind: str, rate: float, *faults: Fault,
             match: Match | None = None) -> FaultPlan:
        """Each call of ``kind`` (``"*"``: any) fails with probability ``rate``, with one of
        ``faults`` (a 503 if none is given)."""
        if kind != "*" and kind not in ROUTE_KINDS:
            raise ValueError(f"unknown route kind {kind!r}; one of {ROUTE_KINDS}")
        self._rules.append(_Rule(kind, list(faults) or [Fault.error(503)], rate, match))
        return self

    def clear(self) -> None:
        """No more faults (those injected stay counted)."""
        self._rules.clear()

    def pick(self, kind: str, record: RequestRecord) -> Fault | None:
        """The fault for this call, if any (and counts it)."""
        for rule in list(self._rules):
            if not rule.applies(kind, record):
                continue
            if rule.rate is None:
                fault = rule.faults.pop(0)
                if not rule.faults:
                    self._rules.remove(rule)
            else:
                rng = self._rngs.setdefault(kind, random.Random(f"{self.seed}:{kind}"))
                if rng.random() >= rule.rate:
                    continue
                fault = rule.faults[int(rng.random() * len(rule.faults))]
            if fault.what == "ok":
                return None
            self.injected.append(InjectedFault(kind, fault, record.method, record.path,
                                               record.at))
            return fault
        return None

    def counts(self) -> Counter[str]:
        """Faults injected, by ``kind fault``."""
        return Counter(f"{f.kind} {f.fault}" for f in self.injected)


class DropsConnections(Protocol):
    """What :class:`GatewayChaos` needs of the fake (``FakeDiscord`` is one)."""

    def disconnect_all(self, code: int = ...) -> None: ...

    def invalidate_sessions(self) -> None: ...


class GatewayChaos:
    """Drops the bot's gateway connections every ``every`` seconds (on average, seeded): the
    bot may resume (``refuse_resume`` = 0), or, with that probability, must identify again."""

    def __init__(self, fake: DropsConnections, every: float, *, refuse_resume: float = 0.0,
                 seed: int = 0) -> None:
        self.fake = fake
        self.every = every
        self.refuse_resume = refuse_resume
        self.rng = random.Random(f"{seed}:gateway")
        self.drops = 0
        self.refused = 0
        self._task: asyncio.Task[None] | None = None

    def drop(self, *, resume: bool) -> None:
        """Drop every connection now; ``resume=False``: the sessions are ended as well."""
        self.drops += 1
        if resume:
            self.fake.disconnect_all()
        else:
            self.refused += 1
            self.fake.invalidate_sessions()

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.every * self.rng.uniform(0.5, 1.5))
            self.drop(resume=self.rng.random() >= self.refuse_resume)

    def start(self) -> GatewayChaos:
        self._task = asyncio.get_running_loop().create_task(self._run(),
                                                            name="fakediscord-chaos")
        return self

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    def describe(self) -> dict[str, Any]:
        return {"gateway_drops": self.drops, "resumes_refused": self.refused}
