"""numlir.scipy.special: special functions, as jax.scipy.special."""

from numlir._src.scipy.special import (beta, betainc, betaln, digamma, entr, erf, erfc, erfcx, erfinv, expit,
                                       factorial, gamma, gammainc, gammaincc, gammaln, gammasgn, i0, i0e, i1,
                                       i1e, kl_div, log_ndtr, log_softmax, loggamma, logit, logsumexp, multigammaln,
                                       ndtr, ndtri, poch, polygamma, rel_entr, softmax, xlog1py, xlogy, zeta)

__all__ = ["beta", "betainc", "betaln", "digamma", "entr", "erf", "erfc", "erfcx", "erfinv", "expit", "factorial",
           "gamma", "gammainc", "gammaincc", "gammaln", "gammasgn", "i0", "i0e", "i1", "i1e", "kl_div",
           "log_ndtr", "log_softmax", "loggamma", "logit", "logsumexp", "multigammaln", "ndtr", "ndtri", "poch", "polygamma",
           "rel_entr", "softmax", "xlog1py", "xlogy", "zeta"]

from numlir._src import traceback_util as _traceback_util  # noqa: E402

_traceback_util.wrap_public_functions(globals())
