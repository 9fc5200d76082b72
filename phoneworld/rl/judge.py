"""The rubric judge for real apps: one model writes a task's rubric, another scores the trajectory
item by item; the episode passes only when every item passes (PhoneBuddy's recipe).

Talks to any OpenAI-compatible endpoint through the `openai` client. The base URL, model and key
come from `JudgeConfig` or the environment; the key is read from the environment variable the
config names and is never logged or stored. Every request has a timeout and bounded retries; an
answer that is not the JSON asked for is retried, then the episode is *unscorable* (`passed=None`),
which gives it no gradient rather than a wrong reward. Answers are cached by a hash of (model,
messages), in memory and optionally on disk, so re-scoring the same trajectory costs nothing.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import threading
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from phoneworld.rl.config import ConfigError, JudgeConfig

log = logging.getLogger(__name__)

RUBRIC_SYSTEM = (
    "You write rubrics for phone tasks. Given a task, list 1 to 5 short, checkable conditions "
    "that must ALL hold at the end of a successful attempt. Answer with a JSON list of strings "
    "only.")
SCORE_SYSTEM = (
    "You grade whether an agent completed a phone task. You get the task, a rubric, the agent's "
    "actions with the screens they were taken on, the final screen and the agent's answer. For "
    'each rubric item decide pass or fail. Answer with JSON only: {"items": [{"item": "...", '
    '"pass": true}], "reason": "..."}')
_BLOCK = re.compile(r"(\{.*\}|\[.*\])", re.S)


@dataclass
class JudgeVerdict:
    """passed: True/False, or None when the judge could not score the episode."""

    passed: bool | None
    items: list[tuple[str, bool]] = field(default_factory=list)
    reason: str = ""


def _json_block(text: str) -> Any:
    """The JSON value in a model's answer (code fences and a preamble are tolerated)."""
    m = _BLOCK.search(text or "")
    if not m:
        raise ValueError("no JSON in the answer")
    return json.loads(m.group(1))


def parse_rubric(text: str) -> list[str]:
    items = _json_block(text)
    if not (isinstance(items, list) and items and all(isinstance(i, str) and i.strip()
                                                      for i in items)):
        raise ValueError("a rubric must be a non-empty JSON list of strings")
    return [i.strip() for i in items][:8]


def parse_score(text: str, rubric: list[str]) -> JudgeVerdict:
    data = _json_block(text)
    items = data.get("items") if isinstance(data, dict) else None
    if not isinstance(items, list) or len(items) != len(rubric):
        raise ValueError(f"expected {len(rubric)} scored items")
    out = []
    for it, name in zip(items, rubric):
        if not isinstance(it, dict) or not isinstance(it.get("pass"), bool):
            raise ValueError("each item needs a boolean 'pass'")
        out.append((name, it["pass"]))
    return JudgeVerdict(all(p for _, p in out), out, str(data.get("reason", ""))[:500])


class RubricJudge:
    """Rubric writing and trajectory scoring against an OpenAI-compatible endpoint."""

    def __init__(self, cfg: JudgeConfig, client: Any = None) -> None:
        base, model, key = cfg.resolved()
        if not model:
            raise ConfigError("the judge needs a model: set judge.model or PHONEWORLD_JUDGE_MODEL")
        self.cfg, self.model = cfg, model
        self.rubric_model = cfg.rubric_model or model
        if client is None:
            from openai import OpenAI

            client = OpenAI(base_url=base, api_key=key or "EMPTY", timeout=cfg.timeout_s,
                            max_retries=0)
        self.client = client
        self.stats: Counter[str] = Counter()
        self._mem: dict[str, str] = {}
        self._lock = threading.Lock()
        self._dir = Path(cfg.cache_dir) if cfg.cache_dir else None
        if self._dir:
            self._dir.mkdir(parents=True, exist_ok=True)
        log.info("judge: model %s at %s", model, base or "the default endpoint")

    # ------------------------------------------------------------------ transport + cache

    def _key(self, model: str, messages: list[dict[str, str]], salt: int) -> str:
        raw = json.dumps([model, messages, salt], sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(raw.encode()).hexdigest()

    def _cached(self, key: str) -> str | None:
        with self._lock:
            if key in self._mem:
                return self._mem[key]
        if self._dir and (self._dir / f"{key}.txt").is_file():
            return (self._dir / f"{key}.txt").read_text(encoding="utf-8")
        return None

    def _store(self, key: str, text: str) -> None:
        with self._lock:
            self._mem[key] = text
        if self._dir:
            (self._dir / f"{key}.txt").write_text(text, encoding="utf-8")

    def _request(self, model: str, messages: list[dict[str, str]]) -> str | None:
        try:
            resp = self.client.chat.completions.create(
                model=model, messages=messages, temperature=0.0, timeout=self.cfg.timeout_s)
            return resp.choices[0].message.content or ""
        except Exception as exc:  # timeouts, connection and API errors: retried, then None
            kind = "timeout" if "timeout" in type(exc).__name__.lower() else "error"
            self.stats[kind] += 1
            log.warning("judge request failed (%s): %s", type(exc).__name__, str(exc)[:200])
            return None

    def _ask(self, model: str, messages: list[dict[str, str]], parse: Any, salt: int = 0) -> Any:
        """The parsed answer, retrying failed and unparseable answers; None at the end."""
        key = self._key(model, messages, salt)
        hit = self._cached(key)
        if hit is not None:
            self.stats["cache_hits"] += 1
            return parse(hit)
        for _attempt in range(self.cfg.retries + 1):
            self.stats["requests"] += 1
            text = self._request(model, messages)
            if text is None:
                continue
            try:
                value = parse(text)
            except (ValueError, TypeError, AttributeError) as exc:
                self.stats["unparseable"] += 1
                log.info("judge answer unparseable (%s): %r", exc, text[:120])
                continue
            self._store(key, text)
            return value
        return None

    # ------------------------------------------------------------------ rubric + score

    def rubric(self, instruction: str) -> list[str] | None:
        msgs = [{"role": "system", "content": RUBRIC_SYSTEM},
                {"role": "user", "content": f"Task: {instruction}"}]
        return self._ask(self.rubric_model, msgs, parse_rubric)  # type: ignore[no-any-return]

    def score(self, instruction: str, steps: list[tuple[str, str]], final_screen: str,
              answer: str | None) -> JudgeVerdict:
        """Score a trajectory: `steps` are (screen text, action text) pairs."""
        rubric = self.rubric(instruction)
        if rubric is None:
            self.stats["unscorable"] += 1
            return JudgeVerdict(None, reason="no rubric")
        msgs = [{"role": "system", "content": SCORE_SYSTEM},
                {"role": "user", "content": self._trajectory(instruction, rubric, steps,
                                                             final_screen, answer)}]
        votes = [self._ask(self.model, msgs, lambda t: parse_score(t, rubric), salt=i)
                 for i in range(self.cfg.votes)]
        valid = [v for v in votes if v is not None]
        if not valid:
            self.stats["unscorable"] += 1
            return JudgeVerdict(None, reason="the judge gave no usable answer")
        passes = sum(bool(v.passed) for v in valid)
        best = valid[0]
        best.passed = passes * 2 > len(valid)
        self.stats["scored"] += 1
        return best

    def _trajectory(self, instruction: str, rubric: list[str], steps: list[tuple[str, str]],
                    final_screen: str, answer: str | None) -> str:
        per = max(200, self.cfg.max_screen_chars // max(1, len(steps)))
        lines = [f"Task: {instruction}", "Rubric:"]
        lines += [f"{i + 1}. {item}" for i, item in enumerate(rubric)]
        lines.append("Trajectory:")
        for i, (screen, action) in enumerate(steps):
            lines.append(f"Step {i + 1} screen:\n{screen[:per]}\nStep {i + 1} action: {action}")
        lines.append(f"Final screen:\n{final_screen[:self.cfg.max_screen_chars]}")
        lines.append(f"Agent's answer: {answer if answer is not None else '(none)'}")
        return "\n".join(lines)
