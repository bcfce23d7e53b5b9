"""numlir.scipy.special: special functions, as jax.scipy.special."""

from numlir._src.scipy.special import (bernoulli, beta, betainc, betaln, boxcox, boxcox1p, comb, digamma, entr,
                                       erf, erfc, erfcx, erfinv, expit, factorial, gamma, gammainc, gammaincc,
                                       gammaln, gammasgn, i0, i0e, i1, i1e, kl_div, log_ndtr, log_softmax,
                                       loggamma, logit, logsumexp, multigammaln, ndtr, ndtri, poch, polygamma,
                                       rel_entr, softmax, xlog1py, xlogy, zeta)
from numlir._src.scipy.special_bessel import bessel_jn
from numlir._src.scipy.special_dilogarithm import spence
from numlir._src.scipy.special_exponential_integrals import exp1, expi, expn
from numlir._src.scipy.special_faddeeva import wofz
from numlir._src.scipy.special_gaussian_integrals import dawsn, owens_t
from numlir._src.scipy.special_hypergeometric import hyp1f1, hyp2f1
from numlir._src.scipy.special_sine_cosine_integrals import fresnel, sici
from numlir._src.scipy.special_spherical_harmonics import sph_harm_y

__all__ = ["bernoulli", "bessel_jn", "beta", "betainc", "betaln", "boxcox", "boxcox1p", "comb", "dawsn", "digamma",
           "entr", "erf", "erfc", "erfcx", "erfinv", "exp1", "expi", "expit", "expn", "factorial", "fresnel",
           "gamma", "gammainc", "gammaincc", "gammaln", "gammasgn", "hyp1f1", "hyp2f1", "i0", "i0e", "i1", "i1e",
           "kl_div", "log_ndtr", "log_softmax", "loggamma", "logit", "logsumexp", "multigammaln", "ndtr", "ndtri",
           "owens_t", "poch", "polygamma", "rel_entr", "sici", "softmax", "spence", "sph_harm_y", "wofz", "xlog1py", "xlogy", "zeta"]

from numlir._src import traceback_util as _traceback_util  # noqa: E402

_traceback_util.wrap_public_functions(globals())
