"""transformers' GPT-2, Llama and BERT, built from tiny configurations
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


def gpt2(layers=2, width=64, heads=4, vocab=256, context=32, dropout=0.0,
         attention="eager", library_loss=True):
    config = transformers.GPT2Config(
        n_layer=layers, n_embd=width, n_head=heads, vocab_size=vocab,
        n_positions=context, resid_pdrop=dropout, embd_pdrop=dropout,
        attn_pdrop=dropout, bos_token_id=0, eos_token_id=0,
        attn_implementation=attention)
    return NextTokenLoss(transformers.GPT2LMHeadModel(config), library_loss)


def llama(layers=2, width=64, heads=4, kv_heads=2, vocab=256, context=32,
          attention="eager", library_loss=True):
    config = transformers.LlamaConfig(
        num_hidden_layers=layers, hidden_size=width,
        intermediate_size=2 * width, num_attention_heads=heads,
        num_key_value_heads=kv_heads, vocab_size=vocab,
        max_position_embeddings=context, bos_token_id=0, eos_token_id=0,
        attn_implementation=attention)
    return NextTokenLoss(transformers.LlamaForCausalLM(config), library_loss)


def bert(layers=2, width=64, heads=4, vocab=256, context=32, dropout=0.0,
         attention="eager"):
    config = transformers.BertConfig(
        num_hidden_layers=layers, hidden_size=width,
        intermediate_size=2 * width, num_attention_heads=heads,
        vocab_size=vocab, max_position_embeddings=context,
        hidden_dropout_prob=dropout, attention_probs_dropout_prob=dropout,
        attn_implementation=attention)
    return MaskedLmLoss(transformers.BertForMaskedLM(config))
