"""The step prompt, shared by SFT data, RL rollouts and evaluation.

A prompt is the chat template applied to a fixed system message (the *prefix*, tokenized once and
whose KV cache the sampler reuses for every row) and one user message (the *suffix*): the
instruction, the last few actions, and the current screen's compact text clipped at a line
boundary to a token budget. Prefix and suffix are tokenized separately, always, so that SFT rows,
sampled rows and training rows hold exactly the same token ids.

Room for vision models: `StepView.screenshot` is carried along; a processor-based builder can
place it in the user message. The text builder ignores it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from phoneworld.rl.config import PromptConfig

SYSTEM = (
    "You operate an Android app to complete a task. Each turn you get the task, your previous "
    "actions and the current screen as lines \"[id] Class text\". Reply with one action as a "
    "JSON object and nothing else. Actions: "
    '{"type":"click","element":ID}, {"type":"long_press","element":ID}, '
    '{"type":"type","text":"...","element":ID}, {"type":"scroll","direction":"down"} (up, down, '
    'left, right), {"type":"back"}, {"type":"home"}, {"type":"enter"}, {"type":"wait"}, '
    '{"type":"done","answer":"..."} when the task is complete (answer only for questions). '
    'Instead of "element" you may give "x" and "y" in [0,1000].'
)
CUT_MARK = "... (screen cut)"
CACHE_ENTRIES = 200_000  # token-id cache size per kind before it is cleared


@dataclass
class StepView:
    """What one step's prompt shows."""

    instruction: str
    history: list[str]
    screen_text: str
    screenshot: Any = field(default=None, repr=False)


class PromptBuilder:
    """Turns `StepView`s into token ids: `prefix_ids` (shared) + a suffix per view."""

    def __init__(self, tokenizer: Any, cfg: PromptConfig) -> None:
        self.tok, self.cfg = tokenizer, cfg
        self.system = cfg.system or SYSTEM
        sys_msg = [{"role": "system", "content": self.system}]
        self.prefix_text = tokenizer.apply_chat_template(sys_msg, tokenize=False)
        self.prefix_ids: list[int] = self._encode([self.prefix_text])[0]
        self._wrap = self._wrapper()
        self._cache: dict[str, list[int]] = {}
        self._screens: dict[str, list[int]] = {}

    def _wrapper(self) -> tuple[str, str] | None:
        """The text the template puts around a user message, when it is plain concatenation
        (ChatML is), so that suffixes need no template rendering per step."""
        probe = "\x00probe\x00"
        text = self._render(probe)
        if text.count(probe) != 1:
            return None
        head, tail = text.split(probe)
        return (head, tail) if self._render("a\nb") == f"{head}a\nb{tail}" else None

    def _render(self, user: str) -> str:
        msgs = [{"role": "system", "content": self.system}, {"role": "user", "content": user}]
        full = self.tok.apply_chat_template(msgs, tokenize=False, add_generation_prompt=True)
        if not full.startswith(self.prefix_text):
            raise ValueError("the chat template does not render the system message as a prefix")
        return str(full[len(self.prefix_text):])

    def _encode(self, texts: list[str]) -> list[list[int]]:
        return list(self.tok(texts, add_special_tokens=False)["input_ids"])

    def user_text(self, view: StepView, screen: str | None = None) -> str:
        hist = view.history[-self.cfg.history:] if self.cfg.history else []
        start = len(view.history) - len(hist) + 1
        lines = [f"{start + i}. {a}" for i, a in enumerate(hist)] or ["none"]
        return (f"Task: {view.instruction}\nPrevious actions:\n" + "\n".join(lines)
                + f"\nScreen:\n{view.screen_text if screen is None else screen}")

    def suffix_text(self, view: StepView, screen: str | None = None) -> str:
        user = self.user_text(view, screen)
        if self._wrap is not None:
            return self._wrap[0] + user + self._wrap[1]
        return self._render(user)

    def clip_screen(self, text: str) -> str:
        """The screen text cut at a line boundary to fit `max_screen_tokens`."""
        budget = self.cfg.max_screen_tokens
        lines = text.split("\n")
        counts = [len(ids) + 1 for ids in self._encode(lines)] if lines else []
        used, kept = 0, []
        for line, n in zip(lines, counts):
            if used + n > budget:
                kept.append(CUT_MARK)
                break
            kept.append(line)
            used += n
        return "\n".join(kept)

    def suffixes(self, views: list[StepView]) -> list[list[int]]:
        """Suffix ids for a batch of views.

        With a plain-concatenation template (ChatML) a suffix is tokenized in pieces that end at
        line breaks (the opening with the instruction, each history line, the screen, the
        closing), each piece once and then taken from a cache: screens, instructions and history
        lines repeat across the episodes of a rollout, so a step costs dictionary lookups. The
        ids differ from tokenizing the whole text at most at those boundaries, and every user of
        the builder (SFT rows, sampling, training) gets the same ids."""
        if self._wrap is None:
            budget = self.cfg.max_screen_tokens
            screens = [v.screen_text for v in views]
            counts = [len(ids) for ids in self._encode(screens)]
            screens = [s if n <= budget else self.clip_screen(s) for s, n in zip(screens, counts)]
            return self._encode([self.suffix_text(v, s) for v, s in zip(views, screens)])
        pieces = [self._pieces(v) for v in views]
        self._fill([p for ps in pieces for p in (*ps[:-2], ps[-1])], screens=False)
        self._fill([ps[-2] for ps in pieces], screens=True)
        out = []
        for ps in pieces:
            ids: list[int] = []
            for i, piece in enumerate(ps):
                ids.extend(self._screens[piece] if i == len(ps) - 2 else self._cache[piece])
            out.append(ids)
        return out

    def _pieces(self, view: StepView) -> list[str]:
        """The suffix text split after line breaks: [opening, history lines..., screen, closing]."""
        assert self._wrap is not None
        hist = view.history[-self.cfg.history:] if self.cfg.history else []
        start = len(view.history) - len(hist) + 1
        lines = [f"{start + i}. {a}" for i, a in enumerate(hist)] or ["none"]
        head = f"{self._wrap[0]}Task: {view.instruction}\nPrevious actions:\n"
        body = [f"{line}\n" for line in lines[:-1]] + [f"{lines[-1]}\nScreen:\n"]
        return [head, *body, view.screen_text, self._wrap[1]]

    def _fill(self, texts: list[str], screens: bool) -> None:
        """Tokenize the pieces not cached yet (one batched call); screens are clipped."""
        cache = self._screens if screens else self._cache
        todo = list(dict.fromkeys(t for t in texts if t not in cache))
        if not todo:
            return
        if len(cache) + len(todo) > CACHE_ENTRIES:
            cache.clear()
        budget = self.cfg.max_screen_tokens
        for text, ids in zip(todo, self._encode(todo)):
            if screens and len(ids) > budget:
                ids = self._encode([self.clip_screen(text)])[0]
            cache[text] = ids

    def prompt_ids(self, view: StepView) -> list[int]:
        return self.prefix_ids + self.suffixes([view])[0]

    def completion_ids(self, action_text: str) -> list[int]:
        """The target tokens of an action: its text then the end-of-turn token."""
        ids = self._encode([action_text])[0]
        return ids + [self.tok.eos_token_id]
