"""transformers' GPT-2, Llama and BERT, and its other decoders and
encoders alike (causal_lm, masked_lm), built from tiny configurations
(no download), each under the library's own language-modelling loss
(`labels=`): next-token cross-entropy for the decoders, whose shifted
labels the library pads with the ignored index -100, and token
cross-entropy against labels for BERT's masked-LM head.
`attention` picks the library's attention implementation: "eager"
(matmuls and softmax) or "sdpa" (scaled_dot_product_attention, which
imports as ckpt.scaled_dot_product_attention). The decoders'
`library_loss=False` computes the same next-token cross-entropy in the
model's own type: the library's loss upcasts the logits to float32
whatever they are, so a float64 model's gradients would carry float32
rounding."""

import torch.nn.functional as F
import transformers
from torch import nn


class NextTokenLoss(nn.Module):
    def __init__(self, model, library_loss=True):
        super().__init__()
        self.model = model
        self.library_loss = library_loss

    def forward(self, tokens):
        if self.library_loss:
            return self.model(input_ids=tokens, labels=tokens,
                              use_cache=False).loss
        logits = self.model(input_ids=tokens, use_cache=False).logits
        return F.cross_entropy(logits[:, :-1].flatten(0, 1),
                               tokens[:, 1:].flatten())


class MaskedLmLoss(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, tokens, labels):
        return self.model(input_ids=tokens, labels=labels).loss


def _config(architecture, layers, width, heads, vocab, context, dropout,
            attention, **options):
    """The library's configuration of `architecture` at these sizes (each
    configuration maps the common names onto its own: GPT-2's n_embd is
    hidden_size), the feed-forward width twice the model's, and every
    dropout probability `dropout` (however the configuration names it:
    attention_dropout, resid_pdrop, hidden_dropout_prob, ...)."""
    config = transformers.AutoConfig.for_model(
        architecture, num_hidden_layers=layers, hidden_size=width,
        intermediate_size=2 * width, num_attention_heads=heads,
        vocab_size=vocab, max_position_embeddings=context,
        attn_implementation=attention, **options)
    for key, value in config.to_dict().items():
        if ("dropout" in key or key.endswith("pdrop")) and \
                isinstance(value, float):
            setattr(config, key, dropout)
    return config


def causal_lm(architecture, layers=2, width=64, heads=4, vocab=256,
              context=32, dropout=0.0, attention="eager", library_loss=True,
              **options):
    """A decoder of the library (mistral, qwen2, phi, falcon, ...) under
    next-token cross-entropy; `options` go to its configuration."""
    config = _config(architecture, layers, width, heads, vocab, context,
                     dropout, attention, **options)
    return NextTokenLoss(
        transformers.AutoModelForCausalLM.from_config(config), library_loss)


def masked_lm(architecture, layers=2, width=64, heads=4, vocab=256,
              context=32, dropout=0.0, attention="eager", **options):
    """An encoder of the library (bert, distilbert, electra, ...) under
    its masked-LM head's cross-entropy against labels."""
    config = _config(architecture, layers, width, heads, vocab, context,
                     dropout, attention, **options)
    return MaskedLmLoss(transformers.AutoModelForMaskedLM.from_config(config))


def gpt2(layers=2, width=64, heads=4, vocab=256, context=32, dropout=0.0,
         attention="eager", library_loss=True):
    return causal_lm("gpt2", layers, width, heads, vocab, context, dropout,
                     attention, library_loss, bos_token_id=0, eos_token_id=0)


def llama(layers=2, width=64, heads=4, kv_heads=2, vocab=256, context=32,
          attention="eager", library_loss=True):
    return causal_lm("llama", layers, width, heads, vocab, context, 0.0,
                     attention, library_loss, num_key_value_heads=kv_heads,
                     bos_token_id=0, eos_token_id=0)


def bert(layers=2, width=64, heads=4, vocab=256, context=32, dropout=0.0,
         attention="eager"):
    return masked_lm("bert", layers, width, heads, vocab, context, dropout,
                     attention)
