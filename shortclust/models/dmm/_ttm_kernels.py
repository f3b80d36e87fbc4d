"""Hot loop of the topic tracking model (Iwata et al., IJCAI 2009). Private: use :class:`TTM`.

Arrays travel as in ``_lda_kernels`` (flat tokens ``token_ptr``/``words``, topics ``z``,
counts ``n_dk``, word-major ``n_wk``, ``n_k``); the counts are built by its
``build_counts``. The prior of a time step is given in full:

* ``a`` (K,): ``alpha_t theta_{t-1,k}``, the Dirichlet parameter of every document's topic
  proportions;
* ``b`` (V, K), word-major: ``beta_{t,k} phi_{t-1,k,v}``, and ``b_total`` (K,):
  ``beta_{t,k}`` (each phi_{t-1,k} sums to 1).

The collapsed conditional of token i (document d, word v), its own assignment left out::

    p(z_i = k | ...) ~ (n_dk + a_k) * (n_vk + b_vk) / (n_k + b_total_k)

A topic is drawn by inverse CDF: the first k, ascending, whose cumulative weight exceeds
``u * total``. The fixed-point updates of the precisions are numpy (``ttm.py``).
"""

import numpy as np
from numba import njit


@njit(cache=True)
def gibbs_sweep(token_ptr, words, z, n_dk, n_wk, n_k, a, b, b_total, uniforms):
    """Re-sample every token's topic once, in order; return the tokens moved.

    ``uniforms`` holds one U[0, 1) draw per token.
    """
    n_topics = n_k.shape[0]
    weights = np.empty(n_topics)
    moved = 0
    for d in range(token_ptr.shape[0] - 1):
        for i in range(token_ptr[d], token_ptr[d + 1]):
            v, old = words[i], z[i]
            n_dk[d, old] -= 1
            n_wk[v, old] -= 1
            n_k[old] -= 1
            total = 0.0
            for k in range(n_topics):
                weights[k] = ((n_dk[d, k] + a[k]) * (n_wk[v, k] + b[v, k])
                              / (n_k[k] + b_total[k]))
                total += weights[k]
            target = uniforms[i] * total
            new = n_topics - 1
            running = 0.0
            for k in range(n_topics):
                running += weights[k]
                if running > target:
                    new = k
                    break
            z[i] = new
            n_dk[d, new] += 1
            n_wk[v, new] += 1
            n_k[new] += 1
            if new != old:
                moved += 1
    return moved


@njit(cache=True)
def fold_in(token_ptr, words, phi_wk, a, alpha, n_iter, out):
    """Each document's topic proportions under fixed topics, by ``n_iter`` EM steps.

    ``theta_dk <- (a_k + sum_{i in d} r_ik) / (n_d + alpha)`` with the responsibilities
    ``r_ik ~ theta_dk phi_{k, w_i}``: the posterior mean of the proportions given the
    expected topic counts of its tokens, under the Dirichlet prior ``a`` (summing to
    ``alpha``) and the fixed ``phi_wk`` (V, K), started from the prior mean.
    Deterministic. ``out`` (documents x K) receives the proportions.
    """
    n_topics = a.shape[0]
    expected = np.empty(n_topics)
    resp = np.empty(n_topics)
    for d in range(token_ptr.shape[0] - 1):
        length = token_ptr[d + 1] - token_ptr[d]
        for k in range(n_topics):
            out[d, k] = a[k] / alpha
        for _ in range(n_iter):
            expected[:] = 0.0
            for i in range(token_ptr[d], token_ptr[d + 1]):
                total = 0.0
                for k in range(n_topics):
                    resp[k] = out[d, k] * phi_wk[words[i], k]
                    total += resp[k]
                if total > 0.0:
                    for k in range(n_topics):
                        expected[k] += resp[k] / total
            for k in range(n_topics):
                out[d, k] = (a[k] + expected[k]) / (length + alpha)
