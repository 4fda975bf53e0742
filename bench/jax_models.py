"""JAX versions of the MLP stack and the GPT-2-style decoder of
examples/torch (same layers and sizes as test/Torch/Inputs/sac_checks.py
builds them), with each block under `jax.checkpoint` and a policy, for
bench/peers.py: what JAX saves (its saved residuals), what XLA allocates
(`compiled.memory_analysis()` on the CPU) and what it recomputes (XLA's
FLOP count of the step, less the step's without rematerialisation)."""

import math
import time

import jax
import jax.numpy as jnp

POLICIES = {
    "nothing_saveable": jax.checkpoint_policies.nothing_saveable,
    "dots_saveable": jax.checkpoint_policies.dots_saveable,
    "dots_with_no_batch_dims_saveable":
        jax.checkpoint_policies.dots_with_no_batch_dims_saveable,
}


def _linear(key, fan_in, fan_out):
    bound = 1 / math.sqrt(fan_in)
    w_key, b_key = jax.random.split(key)
    return {"w": jax.random.uniform(w_key, (fan_in, fan_out), minval=-bound,
                                    maxval=bound),
            "b": jax.random.uniform(b_key, (fan_out,), minval=-bound,
                                    maxval=bound)}


def _layer_norm(x, eps=1e-5):
    mean = x.mean(-1, keepdims=True)
    variance = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) * jax.lax.rsqrt(variance + eps)


def _dropout(key, x, rate):
    if rate == 0.0:
        return x
    keep = jax.random.bernoulli(key, 1 - rate, x.shape)
    return jnp.where(keep, x / (1 - rate), 0)


def mlp_stack(key, width=32, hidden=128, blocks=4, batch=2, length=16):
    """Parameters, inputs and a loss(params, inputs, policy) of the MLP
    stack: pre-LayerNorm blocks x + proj(gelu(fc(ln(x)))), MSE loss."""
    keys = jax.random.split(key, blocks + 2)
    params = [{"fc": _linear(k, width, hidden),
               "proj": _linear(jax.random.fold_in(k, 1), hidden, width)}
              for k in keys[:blocks]]
    inputs = (jax.random.normal(keys[-2], (batch, length, width)),
              jax.random.normal(keys[-1], (batch, length, width)))

    def block(p, x):
        h = jax.nn.gelu(_layer_norm(x) @ p["fc"]["w"] + p["fc"]["b"],
                        approximate=True)
        return x + h @ p["proj"]["w"] + p["proj"]["b"]

    def loss(params, inputs, policy=None):
        x, target = inputs
        step = block if policy is None else jax.checkpoint(block,
                                                           policy=policy)
        for p in params:
            x = step(p, x)
        return ((x - target) ** 2).mean()
    return params, inputs, loss


def gpt2(key, vocab=64, context=16, layers=3, width=32, heads=2, batch=2,
         dropout=0.0):
    """The GPT-2-style decoder: token and position embeddings, pre-LN
    blocks of causal attention and a GELU MLP (dropout after the
    embeddings, on the attention weights and after each residual branch),
    an LM head tied to the token embedding, cross-entropy."""
    keys = jax.random.split(key, layers + 5)
    params = {
        "wte": jax.random.normal(keys[0], (vocab, width)) * 0.02,
        "wpe": jax.random.normal(keys[1], (context, width)) * 0.02,
        "blocks": [{"qkv": _linear(k, width, 3 * width),
                    "proj": _linear(jax.random.fold_in(k, 1), width, width),
                    "fc": _linear(jax.random.fold_in(k, 2), width, 4 * width),
                    "mlp_proj": _linear(jax.random.fold_in(k, 3), 4 * width,
                                        width)}
                   for k in keys[2:2 + layers]],
    }
    inputs = (jax.random.randint(keys[-3], (batch, context), 0, vocab),
              jax.random.randint(keys[-2], (batch, context), 0, vocab))
    dropout_key = keys[-1]
    causal = jnp.tril(jnp.ones((context, context), bool))

    def block(p, x, key):
        B, T, C = x.shape
        k1, k2, k3 = jax.random.split(key, 3)
        qkv = _layer_norm(x) @ p["qkv"]["w"] + p["qkv"]["b"]
        q, k, v = (t.reshape(B, T, heads, C // heads).transpose(0, 2, 1, 3)
                   for t in jnp.split(qkv, 3, axis=-1))
        att = (q @ k.transpose(0, 1, 3, 2)) / math.sqrt(C // heads)
        att = _dropout(k1, jax.nn.softmax(jnp.where(causal, att, -jnp.inf),
                                          axis=-1), dropout)
        y = (att @ v).transpose(0, 2, 1, 3).reshape(B, T, C)
        x = x + _dropout(k2, y @ p["proj"]["w"] + p["proj"]["b"], dropout)
        h = jax.nn.gelu(_layer_norm(x) @ p["fc"]["w"] + p["fc"]["b"],
                        approximate=True)
        return x + _dropout(k3, h @ p["mlp_proj"]["w"] + p["mlp_proj"]["b"],
                            dropout)

    def loss(params, inputs, policy=None):
        tokens, labels = inputs
        keys = jax.random.split(dropout_key, len(params["blocks"]) + 1)
        x = params["wte"][tokens] + params["wpe"][jnp.arange(context)]
        x = _dropout(keys[-1], x, dropout)
        step = block if policy is None else jax.checkpoint(block,
                                                           policy=policy)
        for p, key in zip(params["blocks"], keys):
            x = step(p, x, key)
        logits = _layer_norm(x) @ params["wte"].T
        log_probabilities = jax.nn.log_softmax(logits, axis=-1)
        return -jnp.take_along_axis(log_probabilities, labels[..., None],
                                    axis=-1).mean()
    return params, inputs, loss


def measure(params, inputs, loss, policy_name):
    """Saved residual bytes (what the step keeps from forward for
    backward, parameters and inputs apart), XLA's temporary bytes, the
    recompute FLOPs in percent of a forward, the compile seconds and the
    gradients."""
    from jax._src.ad_checkpoint import saved_residuals
    policy = None if policy_name is None else POLICIES[policy_name]

    def objective(p):
        return loss(p, inputs, policy)
    residuals = saved_residuals(objective, params)
    # Residuals that are arguments (parameters) are not activations.
    saved = sum(r[0].size * r[0].dtype.itemsize for r in residuals
                if "from the argument" not in r[1])
    start = time.perf_counter()
    step = jax.jit(jax.value_and_grad(objective)).lower(params).compile()
    seconds = time.perf_counter() - start
    forward = jax.jit(objective).lower(params).compile()
    (value, gradients) = step(params)
    return {"saved": saved,
            "temp": step.memory_analysis().temp_size_in_bytes,
            "flops": step.cost_analysis()["flops"],
            "forward_flops": forward.cost_analysis()["flops"],
            "seconds": seconds,
            "gradients": jax.tree_util.tree_leaves((value, gradients))}
