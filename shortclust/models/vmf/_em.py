"""EM for a mixture of von Mises-Fisher distributions (Banerjee & Basu, SDM 2007, 2.1).

Private: use :class:`shortclust.models.vmf.movmf.MovMF`.

The rows of X are unit vectors (L2-normalised TF-IDF), or zero rows for empty documents.
A zero row is not on the unit sphere, so it has no vMF density: it is left out of the
likelihood and of the M-step, and its posterior is the prior ``alpha``. Everything works
on sparse X without densifying it: the E-step's ``X M`` and the M-step's ``X^T R`` are
sparse-dense products, O(nnz K) each.

The components are kept as :class:`Mixture`: unit mean directions as the columns of a
``d x K`` matrix, concentrations kappa_h and weights alpha_h. A component whose
responsibilities sum to zero is empty: its weight is 0 (so its log-weight is -inf and no
document is ever assigned to it again) and it keeps its last direction and concentration,
so nothing divides by zero.
"""

from dataclasses import dataclass

import numpy as np
from scipy.special import logsumexp

from shortclust.models.vmf._density import estimate_concentration, log_vmf_normaliser


@dataclass
class Mixture:
    """The parameters of a movMF: ``directions`` (d x K, unit or zero columns),
    ``kappa`` (K,) and ``weights`` (K,), and the documents' dimension ``d``."""

    directions: np.ndarray
    kappa: np.ndarray
    weights: np.ndarray

    @property
    def d(self):
        return self.directions.shape[0]

    def log_prior(self):
        with np.errstate(divide="ignore"):
            return np.log(self.weights)

    def log_joint(self, X, nonempty):
        """``log alpha_h + log f_h(x_i)`` (n x K); the prior alone for empty rows."""
        cosines = np.asarray(X @ self.directions)
        log_prior = self.log_prior()
        joint = log_prior + log_vmf_normaliser(self.d, self.kappa) + self.kappa * cosines
        joint[~nonempty] = log_prior
        return joint


def nonempty_rows(X):
    """Boolean mask of the rows with a non-zero entry (the documents on the sphere)."""
    if hasattr(X, "multiply"):
        return np.asarray(X.multiply(X).sum(axis=1)).ravel() > 0
    return np.any(X != 0, axis=1)


def e_step(mixture, X, nonempty, assignment, temperature=1.0):
    """Posterior responsibilities p(h | x_i) of the non-empty rows, and the objective.

    Parameters
    ----------
    assignment : {"soft", "hard"}
        "soft": ``p(h|x) = alpha_h f_h(x) / sum_l alpha_l f_l(x)`` (section 2.1), with
        deterministic annealing ``p^(1/T)`` renormalised when ``temperature`` T > 1;
        "hard": the one-hot argmax of that posterior (hard-movMF, Banerjee et al. 2005).
    temperature : float
        T >= 1 (soft only).

    Returns
    -------
    responsibilities : ndarray of shape (n_nonempty, K)
    objective : float
        The incomplete-data log-likelihood ``sum_i log sum_h alpha_h f_h(x_i)`` for
        "soft" (at T = 1 whatever the temperature), the classification log-likelihood
        ``sum_i max_h log(alpha_h f_h(x_i))`` for "hard".
    labels : ndarray of shape (n,)
        Argmax of the posterior of every row (the prior's for empty rows).
    """
    joint = mixture.log_joint(X, nonempty)
    labels = np.argmax(joint, axis=1).astype(np.int64)
    inside = joint[nonempty]
    if assignment == "hard":
        responsibilities = np.zeros_like(inside)
        responsibilities[np.arange(inside.shape[0]), labels[nonempty]] = 1.0
        objective = float(inside[np.arange(inside.shape[0]), labels[nonempty]].sum())
        return responsibilities, objective, labels
    normaliser = logsumexp(inside, axis=1, keepdims=True)
    objective = float(normaliser.sum())
    if temperature != 1.0:
        tempered = inside / temperature
        normaliser = logsumexp(tempered, axis=1, keepdims=True)
        inside = tempered
    return np.exp(inside - normaliser), objective, labels


def m_step(X_nonempty, responsibilities, previous):
    """The M-step of section 2.1 from the responsibilities of the non-empty rows.

    ``alpha_h = (1/m) sum_i p(h|x_i)``, ``r_h = sum_i x_i p(h|x_i)``,
    ``mu_h = r_h / ||r_h||``, ``rbar_h = ||r_h|| / sum_i p(h|x_i)``,
    ``kappa_h = (rbar_h d - rbar_h^3) / (1 - rbar_h^2)``. Empty components keep
    ``previous``'s direction and concentration, with weight 0.
    """
    mass = responsibilities.sum(axis=0)
    resultant = np.asarray(X_nonempty.T @ responsibilities)
    length = np.sqrt(np.einsum("ij,ij->j", resultant, resultant))
    alive = (mass > 0) & (length > 0)
    directions = previous.directions.copy()
    directions[:, alive] = resultant[:, alive] / length[alive]
    kappa = previous.kappa.copy()
    kappa[alive] = estimate_concentration(length[alive] / mass[alive], previous.d)
    weights = np.where(alive, mass, 0.0)
    total = weights.sum()
    weights = weights / total if total > 0 else np.full_like(weights, 1.0 / weights.size)
    return Mixture(np.ascontiguousarray(directions), kappa, weights)


def seed_directions(X_nonempty, n_clusters, rng, init="k-means++"):
    """Seeds: ``d x K`` unit columns (zero where no seed was found).

    ``init="random"`` takes K distinct documents drawn uniformly (the random seeding of
    spherical k-means and movMF before k-means++; fewer documents than components leave
    the remaining components unseeded). ``init="k-means++"`` is spherical k-means++: the first seed is a document drawn uniformly; each next one is drawn with probability
    proportional to ``1 - max_s cos(x, seed_s)`` (for unit vectors, half the squared
    distance to the nearest seed: the D^2 rule of k-means++ on the sphere). Once every
    document coincides with a seed (fewer distinct documents than components) the
    remaining components get no seed.
    """
    n, d = X_nonempty.shape
    directions = np.zeros((d, n_clusters))
    if init == "random":
        picks = rng.choice(n, size=min(n, n_clusters), replace=False)
        directions[:, :picks.size] = _dense(X_nonempty[picks]).T
        return directions
    best = np.full(n, -np.inf)
    pick = int(rng.integers(n))
    for k in range(n_clusters):
        row = X_nonempty[pick]
        directions[:, k] = row.toarray().ravel() if hasattr(row, "toarray") else row
        best = np.maximum(best, np.asarray(X_nonempty @ directions[:, k]).ravel())
        if k + 1 == n_clusters:
            break
        distance = np.clip(1.0 - best, 0.0, None)
        total = distance.sum()
        if not total > 1e-12:
            break
        pick = int(np.searchsorted(np.cumsum(distance), rng.random() * total, side="right"))
        pick = min(pick, n - 1)
    return directions


def _dense(rows):
    return rows.toarray() if hasattr(rows, "toarray") else np.asarray(rows)


def initial_mixture(X_nonempty, n_clusters, rng, init="k-means++"):
    """Seeds (``init``, see :func:`seed_directions`), each document assigned to its
    nearest seed, then one M-step."""
    seeds = seed_directions(X_nonempty, n_clusters, rng, init)
    cosines = np.asarray(X_nonempty @ seeds)
    cosines[:, ~np.any(seeds != 0, axis=0)] = -np.inf  # unseeded components take nothing
    responsibilities = np.zeros_like(cosines)
    responsibilities[np.arange(cosines.shape[0]), np.argmax(cosines, axis=1)] = 1.0
    empty = Mixture(seeds, np.zeros(n_clusters), np.zeros(n_clusters))
    return m_step(X_nonempty, responsibilities, empty)


@dataclass
class EMResult:
    mixture: Mixture
    labels: np.ndarray
    objective: float
    history: list
    n_iter: int


def run_em(X, nonempty, mixture, *, assignment, max_iter, tol, temperature, cooling,
           callback=None):
    """EM from ``mixture`` until the objective's relative gain is at most ``tol``.

    Each iteration is an E-step and, unless converged, an M-step; so the labels returned
    are the posterior argmax under the mixture returned. The temperature starts at
    ``temperature`` and is multiplied by ``cooling`` after each M-step, down to 1;
    convergence is tested only after an M-step at T = 1. "hard" also stops when no label changes.
    """
    X_nonempty = X[nonempty]
    history, previous_labels, previous_temperature = [], None, None
    for iteration in range(1, max_iter + 1):
        responsibilities, objective, labels = e_step(mixture, X, nonempty, assignment,
                                                     temperature)
        history.append(objective)
        if callback is not None:
            callback(iteration, labels)
        # Converged only once an M-step has run at T = 1 (the previous E-step's T).
        if temperature == 1.0 and previous_temperature == 1.0:
            gain = objective - history[-2]
            if gain <= tol * abs(objective) or (
                    assignment == "hard" and np.array_equal(labels, previous_labels)):
                return EMResult(mixture, labels, objective, history, iteration)
        previous_labels, previous_temperature = labels, temperature
        mixture = m_step(X_nonempty, responsibilities, mixture)
        temperature = max(1.0, temperature * cooling)
    _, objective, labels = e_step(mixture, X, nonempty, assignment)
    history.append(objective)
    return EMResult(mixture, labels, objective, history, max_iter)
