"""EM for the mixture of EDCM distributions (Banerjee & Basu, SDM 2007, section 2.2;
Elkan, ICML 2006). Private: use :class:`~shortclust.models.edcm.edcm.EDCM`.

The E-step is one sparse product, ``1(X >= 1) @ log(beta).T``, plus the per-length
terms log Gamma(s_h + n) - log Gamma(s_h); the M-step's sums run over the non-zeros of
X (``1(X >= 1).T @ r``) and, for s_h, over the distinct document lengths (see
``_edcm_kernels``).
"""

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.special import gammaln, logsumexp

from shortclust.models.edcm import _kernels as kernels

# Relative scale of the perturbation of beta after each annealed M-step (see perturbed).
PERTURBATION = 1e-3


@dataclass
class Documents:
    """Counts as the EDCM reads them: which words occur, the lengths, the constants.

    ``const[i] = log n_i! - sum_j log x_ij``, the part of log q(x_i | beta) common to
    every component; ``length_index[i]`` the position of n_i in ``lengths`` (ascending,
    distinct); ``by_length`` the 0/1 matrix (distinct lengths x documents) that sums a
    column of responsibilities per length. ``occurs_by_word`` is ``occurs`` transposed,
    stored by rows for the M-step's product.
    """

    occurs: sp.csr_matrix
    occurs_by_word: sp.csr_matrix
    const: np.ndarray
    lengths: np.ndarray
    length_index: np.ndarray
    by_length: sp.csr_matrix

    @classmethod
    def from_counts(cls, counts):
        counts = sp.csr_matrix(counts)
        n = np.asarray(counts.sum(axis=1), dtype=np.int64).ravel()
        occurs = sp.csr_matrix((np.ones(counts.nnz), counts.indices, counts.indptr),
                               shape=counts.shape)
        log_counts = sp.csr_matrix((np.log(counts.data.astype(np.float64)), counts.indices,
                                    counts.indptr), shape=counts.shape)
        const = gammaln(n + 1.0) - np.asarray(log_counts.sum(axis=1)).ravel()
        lengths, length_index = np.unique(n, return_inverse=True)
        by_length = sp.csr_matrix(
            (np.ones(n.size), (np.arange(n.size), length_index)), shape=(n.size, lengths.size))
        return cls(occurs, occurs.T.tocsr(), const, lengths.astype(np.int64), length_index,
                   by_length.T.tocsr())

    @property
    def n_docs(self):
        return self.occurs.shape[0]


@dataclass
class Mixture:
    """Parameters of K EDCM components: beta (K, V), s = beta.sum(1), mixing weights."""

    beta: np.ndarray
    s: np.ndarray
    weights: np.ndarray

    def copy(self):
        return Mixture(self.beta.copy(), self.s.copy(), self.weights.copy())


def log_joint(mixture, docs):
    """``log pi_h + log q(x_i | beta_h)`` for every document and component, (m, K).

    The EDCM log-density (SDM 2007 section 2.2)::

        log q(x | beta) = log n! + log Gamma(s) - log Gamma(s + n) + sum_{x_j>=1} log(beta_j / x_j)

    A component of weight 0, or a word of probability 0 (no smoothing), gives -inf.
    """
    with np.errstate(divide="ignore"):
        log_beta = np.log(mixture.beta)
        log_weights = np.log(mixture.weights)
    words = np.asarray(docs.occurs @ log_beta.T)
    rising = kernels.log_rising_table(mixture.s.astype(np.float64), docs.lengths)
    return words - rising.T[docs.length_index] + docs.const[:, None] + log_weights


def posteriors(joint, weights, inverse_temperature=1.0):
    """p(h | x_i) from the log joint, tempered: proportional to ``exp(b log_joint)``.

    With b < 1 this is the E-step of deterministic annealing (Ueda & Nakano 1998, which
    Elkan 2006 uses for EDCM mixtures). A document whose every component gives -inf (a
    word unseen with ``smoothing=0``) gets the mixing weights.
    """
    joint = np.array(joint, dtype=np.float64)
    dead = ~np.isfinite(joint.max(axis=1))
    if dead.any():
        with np.errstate(divide="ignore"):
            joint[dead] = np.log(weights)
    tempered = inverse_temperature * joint
    with np.errstate(invalid="ignore"):
        tempered -= tempered.max(axis=1, keepdims=True)
    proba = np.exp(tempered)
    return proba / proba.sum(axis=1, keepdims=True)


def log_likelihood(joint):
    """sum_i log sum_h pi_h q(x_i | beta_h); -inf when a document has probability 0."""
    return float(logsumexp(joint, axis=1).sum())


def log_prior(mixture, pseudo_counts):
    """The log prior that smoothing amounts to: sum_h sum_j a_j log beta_hj (0 if a = 0).

    With pseudo-counts a_j the M-step below is the exact maximiser of the expected
    log-likelihood plus this term, so EM never decreases their sum.
    """
    if not np.any(pseudo_counts):
        return 0.0
    return float((np.log(mixture.beta) @ pseudo_counts).sum())


def m_step(docs, responsibilities, pseudo_counts, previous):
    """Parameters maximising the expected log-likelihood plus :func:`log_prior`.

    For each component h with weight on a non-empty document (SDM 2007, section 2.2,
    with the smoothing pseudo-counts a_j added to the counts of documents)::

        c_hj    = sum_i p(h|x_i) 1(x_ij >= 1) + a_j          (over the non-zeros of X)
        s_h     = sum_j c_hj / (sum_i p(h|x_i) Psi(s_h + n_i) - M_h Psi(s_h)),  M_h = sum_i p(h|x_i)
        beta_hj = c_hj   / (sum_i p(h|x_i) Psi(s_h + n_i) - M_h Psi(s_h))

    s_h is the fixed point of its equation (:func:`_edcm_kernels.solve_precision`), and
    beta_hj is computed as s_h c_hj / sum_j c_hj, the same at the fixed point, so that
    sum_j beta_hj = s_h also when s_h is held at a bound of its range. pi_h = M_h / m. A component without such weight keeps its
    previous beta and s (its prior term stays as it was).
    """
    r = np.asarray(responsibilities, dtype=np.float64)
    counts = np.asarray(docs.occurs_by_word @ r).T + pseudo_counts[None, :]
    by_length = np.ascontiguousarray(np.asarray(docs.by_length @ r).T)
    nonempty = by_length[:, docs.lengths > 0].sum(axis=1)
    active = nonempty > 1e-10
    totals = counts.sum(axis=1)
    s = kernels.solve_precisions(docs.lengths, by_length, totals,
                                 previous.s.astype(np.float64), active)
    beta = previous.beta.copy()
    beta[active] = s[active, None] * counts[active] / totals[active, None]
    finite = np.isfinite(beta).all(axis=1)
    beta[~finite] = previous.beta[~finite]
    s = np.where(active & finite, beta.sum(axis=1), previous.s)
    return Mixture(beta, s, r.sum(axis=0) / r.shape[0])


def initial_mixture(docs, n_clusters, pseudo_counts, rng):
    """Each document in a uniformly drawn component, then an M-step.

    A component that draws no document starts (and, with weight 0, stays) at the EDCM
    of the whole collection.
    """
    m = docs.n_docs
    whole = np.ones((m, 1))
    n_words = docs.occurs.shape[1]
    start = Mixture(np.ones((1, n_words)), np.full(1, float(n_words)), np.ones(1))
    collection = m_step(docs, whole, pseudo_counts * n_clusters, start)
    labels = rng.integers(0, n_clusters, size=m)
    r = np.zeros((m, n_clusters))
    r[np.arange(m), labels] = 1.0
    previous = Mixture(np.repeat(collection.beta, n_clusters, axis=0),
                       np.repeat(collection.s, n_clusters), np.full(n_clusters, 1.0 / n_clusters))
    return m_step(docs, r, pseudo_counts, previous)


def annealing_schedule(start, factor, max_iter):
    """Inverse temperatures b_t = min(1, start factor^t) for t = 0..max_iter-1."""
    return np.minimum(1.0, start * factor ** np.arange(max_iter, dtype=np.float64))


@dataclass
class EMResult:
    mixture: Mixture
    joint: np.ndarray
    n_iter: int
    log_likelihood_history: list
    objective_history: list


def perturbed(mixture, rng, scale=PERTURBATION):
    """``mixture`` with each beta_hj multiplied by exp(scale u), u standard normal.

    While annealing, the components tend to one another (at b -> 0 every document is
    shared equally) and split apart when b passes a critical value, along directions
    the data favours (Rose 1998). Components that became equal to machine precision can
    no longer split, as EM keeps them equal; a small perturbation after each annealed
    M-step keeps them apart by at least its scale, as deterministic annealing's
    perturbed codevectors do.
    """
    beta = mixture.beta * np.exp(scale * rng.standard_normal(mixture.beta.shape))
    return Mixture(beta, beta.sum(axis=1), mixture.weights)


def run_em(docs, mixture, pseudo_counts, schedule, tol, rng, callback=None):
    """EM from ``mixture``, E-step at inverse temperature ``schedule[t]`` at iteration t.

    Each iteration: E-step (tempered posteriors), M-step, and while b < 1 a
    :func:`perturbed` mixture (``rng``). The histories hold, before each
    iteration and after the last, the log-likelihood and the objective EM increases at
    b = 1 (log-likelihood plus :func:`log_prior`). Stops after ``len(schedule)``
    iterations, or when an iteration at b = 1 raised the objective by at most ``tol``
    times its magnitude. ``joint`` is the final mixture's :func:`log_joint`.
    """
    joint = log_joint(mixture, docs)
    likelihoods = [log_likelihood(joint)]
    objectives = [likelihoods[-1] + log_prior(mixture, pseudo_counts)]
    n_iter = 0
    for b in schedule:
        responsibilities = posteriors(joint, mixture.weights, b)
        mixture = m_step(docs, responsibilities, pseudo_counts, mixture)
        if b < 1.0:
            mixture = perturbed(mixture, rng)
        joint = log_joint(mixture, docs)
        likelihoods.append(log_likelihood(joint))
        objectives.append(likelihoods[-1] + log_prior(mixture, pseudo_counts))
        n_iter += 1
        if callback is not None:
            callback(n_iter, len(schedule), int(np.unique(joint.argmax(axis=1)).size))
        gain = objectives[-1] - objectives[-2]
        if b >= 1.0 and np.isfinite(objectives[-1]) and gain <= tol * abs(objectives[-1]):
            break
    return EMResult(mixture, joint, n_iter, likelihoods, objectives)
