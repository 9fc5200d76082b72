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

from rl.config import PromptConfig

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
        """Suffix ids for a batch of views (batched tokenizer calls; long screens clipped)."""
        budget = self.cfg.max_screen_tokens
        screens = [v.screen_text for v in views]
        counts = [len(ids) for ids in self._encode(screens)]
        screens = [s if n <= budget else self.clip_screen(s) for s, n in zip(screens, counts)]
        return self._encode([self.suffix_text(v, s) for v, s in zip(views, screens)])

    def prompt_ids(self, view: StepView) -> list[int]:
        return self.prefix_ids + self.suffixes([view])[0]

    def completion_ids(self, action_text: str) -> list[int]:
        """The target tokens of an action: its text then the end-of-turn token."""
        ids = self._encode([action_text])[0]
        return ids + [self.tok.eos_token_id]
