"""The special-point sweep's exceptions for scipy.special, lax's special functions and
jnp.i0: the points where JAX's answer is mathematically wrong and numlir keeps the right
one, each with the test in test_special_points_proofs.py that proves numlir's value
without JAX.

Each entry is ``(cases, order, points, reason, proof)``, the fields of
special_points.JaxIsWrong, which special_points.py takes in as
``*(JaxIsWrong(*entry) for entry in JAX_IS_WRONG)``. A point listed for a case holds in
every dtype and mode where the two disagree there (most are float32 only or float64 only,
where the other dtype's rounding happens to agree).
"""

from __future__ import annotations

import math

INF, NAN = math.inf, math.nan

_I0E_I1E = ("lax.bessel_i0e", "scipy.special.i0e", "lax.bessel_i1e", "scipy.special.i1e")
_TRIGAMMA_AT_INF = ("lax.digamma", "scipy.special.digamma")
_LGAMMA = ("lax.lgamma", "scipy.special.gammaln", "scipy.special.loggamma", "scipy.special.multigammaln(x, 1.5)")

JAX_IS_WRONG = (
    # --- Bessel functions -------------------------------------------------------------------
    *((_I0E_I1E, order, (1e30, -1e30),
       "exp(-|x|) I_v(x) ~ (2 pi |x|)^-1/2: its derivatives are ~1e-46 at 1e30, 0 in float32; "
       "jax's rule leaves the rounding of i1e - sign(x) i0e (2.6e-23)",
       "test_bessel_i0e_and_i1e_derivatives_vanish_at_huge_arguments") for order in (1, 2)),
    *((("lax.bessel_i1e", "scipy.special.i1e"), order, (NAN,),
       "a derivative at NaN is NaN; jax's rule returns its x -> 0 limit (1/2, then 0) wherever "
       "|x| > eps is false, NaN included",
       "test_bessel_i1e_derivative_at_nan_is_nan") for order in (1, 2)),
    (("scipy.special.i0",), 1, (0.0, -0.0, 1e-30, -1e-30),
     "I0' = I1 = x/2 + ...: 0 at 0 (jax: 1, the slope of |x| in exp(|x|) i0e) and +-5e-31 at "
     "+-1e-30 (jax: 0, exp(|x|) i0e' cancelling sign(x) i0e)",
     "test_i0_derivatives_at_and_near_zero_follow_the_maclaurin_series"),
    (("numpy.i0",), 1, (1e-30, -1e-30),
     "I0' = I1 = x/2 + ...: +-5e-31 at +-1e-30 (jax: 0, exp(|x|) i0e' cancelling sign(x) i0e)",
     "test_i0_derivatives_at_and_near_zero_follow_the_maclaurin_series"),
    (("scipy.special.i0", "numpy.i0"), 2, (0.0, -0.0),
     "I0''(0) = 1/2; jax gives 1.5 (scipy's, from |x|'s slope) and 0 (jnp.i0's rule zeroes the "
     "whole tangent at 0, so its derivative too)",
     "test_i0_derivatives_at_and_near_zero_follow_the_maclaurin_series"),
    (("scipy.special.i0", "numpy.i0"), 1, (1e30, -1e30),
     "I0'(x) = I1(x) overflows to +-inf at +-1e30; jax gives NaN in float64 (inf * 0 where "
     "i0e' rounds to 0)",
     "test_i0_and_i1_derivatives_overflow_to_infinity_at_huge_arguments"),
    (("scipy.special.i0", "numpy.i0"), 2, (1e30, -1e30),
     "I0'' = I0 - I1/x ~ e^|x| / sqrt(2 pi |x|) overflows to +inf; jax gives NaN",
     "test_i0_and_i1_derivatives_overflow_to_infinity_at_huge_arguments"),
    (("scipy.special.i1",), 1, (1e30, -1e30),
     "I1' = I0 - I1/x ~ e^|x| / sqrt(2 pi |x|) overflows to +inf; jax gives NaN",
     "test_i0_and_i1_derivatives_overflow_to_infinity_at_huge_arguments"),
    (("scipy.special.i1",), 2, (0.0, -0.0, 1e-30, -1e-30),
     "I1''(x) = 3x/8 + ...: 0 at 0 and +-3.75e-31 at +-1e-30; jax gives +-1 (twice |x|'s slope "
     "times i1e' = 1/2)",
     "test_i1_second_derivative_at_and_near_zero_follows_the_maclaurin_series"),
    # --- Gamma family ------------------------------------------------------------------------
    ((*_LGAMMA, "scipy.special.betaln(x, x)"), 0, (1.0,),
     "Gamma(1) = Gamma(2) = 1, so lgamma(1) = 0 exactly; jax's float32 lgamma(1) is 4.8e-7",
     "test_lgamma_of_one_and_two_is_exactly_zero"),
    *((_TRIGAMMA_AT_INF, order, (INF,),
       "psi^(n)(x) ~ (n-1)!/x^n -> 0 as x -> inf; jax gives NaN",
       "test_polygamma_vanishes_at_infinity_and_decays_like_a_power") for order in (1, 2)),
    (_LGAMMA, 2, (INF,),
     "lgamma'' = trigamma ~ 1/x -> 0 as x -> inf; jax gives NaN",
     "test_polygamma_vanishes_at_infinity_and_decays_like_a_power"),
    *((("lax.polygamma(1, x)", "scipy.special.polygamma(2, x)"), order, (INF,),
       "psi^(n)(x) ~ (-1)^(n+1) (n-1)!/x^n -> 0 as x -> inf, as do its derivatives; jax gives NaN",
       "test_polygamma_vanishes_at_infinity_and_decays_like_a_power") for order in (0, 1, 2)),
    (_TRIGAMMA_AT_INF, 1, (1e30,),
     "trigamma(x) = 1/x + 1/(2x^2) + ...: 1e-30 at 1e30; jax's float32 gives 0",
     "test_polygamma_vanishes_at_infinity_and_decays_like_a_power"),
    (_LGAMMA, 2, (1e30,),
     "lgamma'' = trigamma(x) = 1e-30 at 1e30; jax's float32 gives 0",
     "test_polygamma_vanishes_at_infinity_and_decays_like_a_power"),
    (("scipy.special.gamma", "scipy.special.factorial"), 2, (1e30,),
     "Gamma'' = Gamma (psi^2 + psi') > 0 overflows with Gamma: +inf; jax's float32 gives NaN",
     "test_gamma_and_factorial_curvature_overflows_at_huge_arguments"),
    (("lax.igamma(0, x)", "scipy.special.gammainc(0, x)"), 0, (0.5, 1e-30),
     "P(a, x) -> 1 as a -> 0 for every x > 0 (Gamma(a) collapses onto 0); jax gives NaN below 1",
     "test_regularized_gamma_at_zero_shape_is_its_limit_one"),
    (("lax.igammac(x, x)", "scipy.special.gammaincc(x, x)"), 0, (1e-30,),
     "Q(a, a) = -a log a - euler_gamma a + O(a^2) = 6.85e-29 at 1e-30; jax gives -2.2e-15 "
     "(1 - P, a negative probability) or 0",
     "test_gammaincc_of_tiny_equal_arguments_is_minus_a_log_a_minus_gamma_a"),
    # --- Beta family: jax's betaln evaluates its large-b branch everywhere; NaN gradients leak
    # through its jnp.where, and its quotient rule squares 1e30 away -------------------------
    (("scipy.special.betaln(x, x)",), 1, (1e-30, -1e-30, 1e30),
     "d/dx log|B(x, x)| = 2 (psi(x) - psi(2x)): -1/x at +-1e-30, -2 log 2 at 1e30; jax gives "
     "NaN and -2.386",
     "test_beta_family_derivatives_where_jax_has_nan_from_an_unselected_branch"),
    (("scipy.special.betaln(x, x)",), 2, (1e-30, -1e-30),
     "d2/dx2 log|B(x, x)| = 2 psi'(x) - 4 psi'(2x) ~ 1/x^2; jax gives NaN",
     "test_beta_family_derivatives_where_jax_has_nan_from_an_unselected_branch"),
    (("scipy.special.betaln(x, x)",), 2, (1e30,),
     "2 psi'(x) - 4 psi'(2x) = 1/(2 x^2) + O(x^-3) = 5e-61 at 1e30, below the rounding of its "
     "two terms (2e-30): numlir's 0 is within 5e-61 of it; jax gives NaN (float32) and "
     "7.9e-46 (float64), 1.6e15 times the truth",
     "test_beta_family_derivatives_where_jax_has_nan_from_an_unselected_branch"),
    (("scipy.special.betaln(x, 1.5)", "scipy.special.betaln(1.5, x)", "scipy.special.betaln(x, -1.5)",
      "scipy.special.betaln(-1.5, x)"), 1, (1e30,),
     "psi(x) - psi(x + b) ~ -b/x = -+1.5e-30 at 1e30; jax's float32 gives twice that",
     "test_beta_family_derivatives_where_jax_has_nan_from_an_unselected_branch"),
    (("scipy.special.betaln(x, 1.5)", "scipy.special.betaln(1.5, x)"), 2, (0.0, -0.0, -1.0, 1e-30, -1e-30),
     "psi'(x) - psi'(x + 1.5) is +inf at psi''s poles 0 and -1 and ~1/x^2 (inf in float32) at "
     "+-1e-30; jax gives NaN",
     "test_beta_family_derivatives_where_jax_has_nan_from_an_unselected_branch"),
    (("scipy.special.betaln(x, -1.5)", "scipy.special.betaln(-1.5, x)"), 1, (1.0, 1e-30, -1e-30),
     "psi(x) - psi(x - 1.5): -0.6137 at 1, -+1e30 at +-1e-30; jax gives NaN",
     "test_beta_family_derivatives_where_jax_has_nan_from_an_unselected_branch"),
    (("scipy.special.betaln(x, -1.5)", "scipy.special.betaln(-1.5, x)"), 2, (0.0, -0.0, 1e-30, -1e-30),
     "psi'(x) - psi'(x - 1.5): +inf at 0, ~1/x^2 at +-1e-30; jax gives NaN",
     "test_beta_family_derivatives_where_jax_has_nan_from_an_unselected_branch"),
    (("scipy.special.beta(x, -1.5)", "scipy.special.beta(-1.5, x)"), 1, (1.0, 1e-30, -1e-30),
     "B' = B (psi(x) - psi(x - 1.5)): 0.409 at 1; B ~ 1/x near 0, so B' ~ -1/x^2 (-inf in "
     "float32); jax gives NaN",
     "test_beta_family_derivatives_where_jax_has_nan_from_an_unselected_branch"),
    (("scipy.special.beta(x, -1.5)", "scipy.special.beta(-1.5, x)"), 2, (1.0, 1e-30, -1e-30),
     "B'' is 4.609 at 1 and ~2/x^3 near 0; jax gives NaN",
     "test_beta_family_derivatives_where_jax_has_nan_from_an_unselected_branch"),
    (("scipy.special.beta(x, x)",), 1, (1e-30, -1e-30),
     "B(x, x) ~ 2/x near 0: B' ~ -2/x^2; jax gives NaN",
     "test_beta_family_derivatives_where_jax_has_nan_from_an_unselected_branch"),
    (("scipy.special.beta(x, x)",), 2, (1e-30, -1e-30),
     "B(x, x) ~ 2/x near 0: B'' ~ 4/x^3; jax gives NaN",
     "test_beta_family_derivatives_where_jax_has_nan_from_an_unselected_branch"),
    # --- poch ---------------------------------------------------------------------------------
    (("scipy.special.poch(1.5, x)", "scipy.special.poch(-1.5, x)"), 2, (1e30,),
     "poch(z, m) = Gamma(z + m) / Gamma(z) overflows with Gamma(1e30), and so do its "
     "m-derivatives poch psi(z + m) and poch (psi(z + m)^2 + psi'(z + m)): +inf (Gamma(1.5) "
     "and Gamma(-1.5) are positive); jax's float32 gives NaN",
     "test_poch_at_huge_and_tiny_arguments"),
    (("scipy.special.poch(x, 1.5)", "scipy.special.poch(x, -1.5)", "scipy.special.poch(x, x)"), 0, (1e30,),
     "poch(z, m) ~ z^m: 1e45 (inf in float32), 1e-45 (0 in float32), and poch(z, z) = inf; "
     "jax's gamma(z + m) / gamma(z) is inf / inf = NaN",
     "test_poch_at_huge_and_tiny_arguments"),
    (("scipy.special.poch(x, 1.5)", "scipy.special.poch(x, -1.5)", "scipy.special.poch(x, x)"), 1, (1e30,),
     "poch' = poch (psi(z + m) - psi(z)) ~ m z^(m-1): 1.5e15, -1.5e-75, inf; jax gives NaN",
     "test_poch_at_huge_and_tiny_arguments"),
    (("scipy.special.poch(x, 1.5)", "scipy.special.poch(x, -1.5)"), 2, (1e30,),
     "poch'' ~ m (m - 1) z^(m-2); jax gives NaN",
     "test_poch_at_huge_and_tiny_arguments"),
    (("scipy.special.poch(x, 1.5)", "scipy.special.poch(x, -1.5)"), 1, (0.0, -0.0),
     "poch(z, m) = z Gamma(z + m) / Gamma(z + 1), so poch'(0) = Gamma(m); jax gives NaN",
     "test_poch_at_huge_and_tiny_arguments"),
    (("scipy.special.poch(x, 1.5)", "scipy.special.poch(x, -1.5)"), 2, (1e-30, -1e-30),
     "poch''(0) = 2 Gamma(m) (psi(m) - psi(1)) (1.088, 6.052); jax's (psi(z+m) - psi(z)) poch "
     "differentiated again cancels 1/z^2 terms into 1e15",
     "test_poch_at_huge_and_tiny_arguments"),
    *((("scipy.special.poch(0, x)",), order, (1e30,),
       "poch(0, m) = Gamma(m) / Gamma(0) = 0 for every m, so its derivatives are 0; jax gives NaN",
       "test_poch_at_huge_and_tiny_arguments") for order in (0, 1, 2)),
    # --- zeta ---------------------------------------------------------------------------------
    (("scipy.special.zeta(1.5, x)",), 0, (1e30, INF),
     "zeta(s, q) ~ q^(1-s)/(s-1): 2e-15 at (1.5, 1e30) (jax: 0), 0 at q = inf (jax: NaN)",
     "test_zeta_at_huge_arguments_follows_its_integral_term"),
    (("scipy.special.zeta(x, 1.5)", "scipy.special.zeta(x, x)"), 0, (1e30, INF),
     "zeta(s, q) -> 0 as s -> inf for q > 1 (and q -> inf); jax gives NaN",
     "test_zeta_at_huge_arguments_follows_its_integral_term"),
    (("scipy.special.zeta(x, -1.5)",), 0, (1e30, INF),
     "zeta(s, -1.5) holds (-0.5)^-s = +inf for even s = 1e30 (and s = inf); jax gives NaN",
     "test_zeta_at_huge_arguments_follows_its_integral_term"),
    *((("scipy.special.zeta(x, 1.5)",), order, (1e30, INF),
       "d/ds zeta(s, 1.5) = -sum log(1.5 + k) (1.5 + k)^-s -> 0 as s -> inf; jax gives NaN",
       "test_zeta_at_huge_arguments_follows_its_integral_term") for order in (1, 2)),
    *((("scipy.special.zeta(x, x)",), order, (INF,),
       "the derivatives of zeta(s, s) -> 0 as s -> inf; jax gives NaN",
       "test_zeta_at_huge_arguments_follows_its_integral_term") for order in (1, 2)),
    (("scipy.special.zeta(x, x)",), 1, (1.0,),
     "zeta(s, s) = 1/(s - 1) + O(1) at the pole: slope -1/(s - 1)^2 -> -inf from both sides; "
     "jax gives NaN",
     "test_zeta_at_huge_arguments_follows_its_integral_term"),
    (("scipy.special.zeta(x, 1.5)",), 2, (1.0,),
     "d2/ds2 zeta(s, q) ~ 2/(s - 1)^3: +inf from above, -inf from below, so NaN at the pole; "
     "jax gives +inf (and NaN for zeta(s, s))",
     "test_zeta_at_huge_arguments_follows_its_integral_term"),
    (("scipy.special.zeta(-1.5, x)",), 1, (1e30,),
     "d/dq zeta(-1.5, q) = 1.5 zeta(-0.5, q) ~ -q^1.5 = -1e45: -inf in float32; jax gives NaN",
     "test_zeta_at_huge_arguments_follows_its_integral_term"),
    (("scipy.special.zeta(-1.5, x)",), 2, (1e30, INF),
     "d2/dq2 zeta(-1.5, q) = 0.75 zeta(0.5, q) ~ -1.5 sqrt(q): -1.5e15, -> -inf; jax gives NaN",
     "test_zeta_at_huge_arguments_follows_its_integral_term"),
    *((("scipy.special.zeta(1.5, x)",), order, (-INF,),
       "the terms (q + k)^-s of a non-integer s have no real value for q + k < 0, so zeta and its "
       "q-derivatives are NaN at every q < 0, as both give at -1e30 and jax's own zeta(1.5, -inf) "
       "is; jax's derivatives at -inf are 0, from pow(-inf, -2.5) = 0",
       "test_zeta_of_a_negative_q_has_no_value_for_a_non_integer_s") for order in (1, 2)),
    # --- Error function family ----------------------------------------------------------------
    *((("scipy.special.erfcx",), order, (1e30, INF),
       "erfcx' ~ -1/(sqrt(pi) x^2), erfcx'' ~ 2/(sqrt(pi) x^3): -5.6e-61 and 1.1e-90 at 1e30, "
       "0 at inf; jax's 2x erfcx - 2/sqrt(pi) cancels to rounding (1.5e-16, -8e-8 in float32; "
       "3e14 for the second) and gives NaN at inf",
       "test_erfcx_derivatives_at_huge_arguments_follow_the_asymptotic_series")
      for order in (1, 2)),
    (("scipy.special.log_ndtr",), 1, (-1e30, -INF),
     "log_ndtr' = phi/Phi ~ -x: 1e30 at -1e30, -> +inf; jax's exp(log phi - log Phi) of two "
     "huge logarithms gives 1 (float64) or NaN",
     "test_log_ndtr_slope_in_the_far_lower_tail"),
    (("scipy.special.log_ndtr",), 2, (-1e30,),
     "(phi/Phi)' = -s (x + s) -> -1; jax gives 1e30 (float64) or NaN",
     "test_log_ndtr_slope_in_the_far_lower_tail"),
    (("scipy.special.ndtri",), 1, (0.0, -0.0, 1.0),
     "ndtri' = 1/phi(ndtri(p)) -> +inf at p = 0 and 1; jax gives 0 (its where's constant branch)",
     "test_ndtri_slope_is_infinite_at_zero_and_one"),
    (("scipy.special.ndtri",), 2, (0.0, -0.0, 1.0, 1e-30),
     "ndtri'' = 2 pi z e^(z^2): -inf at 0, +inf at 1 (jax: 0), -8.6e58 at 1e-30, -inf in "
     "float32 (jax: NaN)",
     "test_ndtri_slope_is_infinite_at_zero_and_one"),
    # --- Integrals ----------------------------------------------------------------------------
    (("scipy.special.expi",), 0, (0.0, -0.0, INF, -INF),
     "Ei = euler_gamma + log|x| + O(x) -> -inf at 0, ~ e^x/x -> inf, = -E1(-x) -> 0 at -inf; "
     "jax gives NaN",
     "test_exponential_integrals_at_their_limits"),
    (("scipy.special.exp1",), 0, (INF,),
     "E1(x) ~ e^-x/x -> 0; jax gives NaN",
     "test_exponential_integrals_at_their_limits"),
    (("scipy.special.exp1",), 1, (-0.0, INF),
     "E1'(x) = -e^-x/x: -inf at 0 (-0 is 0; jax's 1/(-0) gives +inf), -0 at inf (jax: NaN)",
     "test_exponential_integrals_at_their_limits"),
    (("scipy.special.expn(x, x)", "scipy.special.expn(0, x)"), 0, (-0.0,),
     "E_0(0) = int_1^inf dt = +inf (-0 is 0); jax's e^-x/x gives -inf at -0",
     "test_expn_at_its_limits"),
    (("scipy.special.expn(0, x)", "scipy.special.expn(1.5, x)", "scipy.special.expn(-1.5, x)"), 0, (INF,),
     "E_n(x) -> 0 as x -> inf; jax gives NaN",
     "test_expn_at_its_limits"),
    (("scipy.special.expn(1.5, x)", "scipy.special.expn(-1.5, x)"), 1, (INF,),
     "E_n' = -E_(n-1) -> -0 as x -> inf; jax gives NaN",
     "test_expn_at_its_limits"),
    (("scipy.special.expn(1.5, x)",), 0, (0.0, -0.0),
     "E_1.5(0) = int_1^inf t^-1.5 dt = 2; jax gives inf for every n < 2",
     "test_expn_at_its_limits"),
    (("scipy.special.expn(0, x)",), 1, (1.0, 0.5),
     "E_0'(x) = -e^-x (1 + x)/x^2: -0.736, -3.639; jax's -E_-1(x) is NaN for x <= 1",
     "test_expn_at_its_limits"),
    *((("scipy.special.expn(-1.5, x)",), order, (1.0, 0.5),
       "E_n(x) = int_1^inf e^(-x t) t^-n dt converges for every x > 0: E_-1.5 = 1.1288, 7.2384 "
       "and E_-1.5' = -E_-2.5 = -3.1899, -37.405 at 1 and 0.5; jax's is NaN for x <= 1 and n "
       "not a whole number >= 1",
       "test_expn_of_negative_order_is_its_integral") for order in (0, 1)),
    (("scipy.special.expn(x, 1.5)",), 0, (-1e30,),
     "E_n(1.5) >= int_2^3 e^(-1.5 t) t^-n dt >= e^-4.5 2^(-n) = +inf at n = -1e30; jax gives "
     "-0 (float32) or -2.2e-31 (float64) from a continued fraction cut at a fixed depth",
     "test_expn_of_negative_order_is_its_integral"),
    (("scipy.special.spence",), 0, (INF,),
     "spence(x) ~ -log(x)^2 / 2 -> -inf; jax gives NaN",
     "test_spence_derivatives_follow_log_x_over_one_minus_x"),
    (("scipy.special.spence",), 1, (0.0, -0.0, 1.0, 1e-30, 1e30),
     "spence' = log x / (1 - x): -inf at 0, -1 at 1 (jax: 0, its constant branches), "
     "-69.08 at 1e-30 (jax: -70.08), -6.9e-29 at 1e30 (jax's float32: -0)",
     "test_spence_derivatives_follow_log_x_over_one_minus_x"),
    (("scipy.special.spence",), 2, (0.0, -0.0, 1.0, 1e-30, 1e30),
     "spence'' = (1/x - 1 + log x) / (1 - x)^2: +inf at 0, 1/2 at 1 (jax: 0), 1e30 at 1e-30 "
     "(jax: 2e30 or NaN), 6.8e-59 at 1e30 (jax's float32: NaN)",
     "test_spence_derivatives_follow_log_x_over_one_minus_x"),
    (("scipy.special.owens_t(0, x)",), 0, (INF, -INF),
     "T(0, a) = arctan(a) / (2 pi) -> +-1/4; jax gives NaN",
     "test_owens_t_at_infinite_a_is_a_quarter"),
    # --- Entropies, x log y, Box-Cox ------------------------------------------------------------
    (("scipy.special.rel_entr(x, x)", "scipy.special.kl_div(x, x)"), 2, (1e-30, 1e30),
     "rel_entr(x, x) = kl_div(x, x) = 0 for every x > 0, so their curvature is 0; jax's "
     "quotient rule squares x into 0 or inf (inf, 1.4e14, -1e-30)",
     "test_entropy_and_x_log_y_curvature_at_tiny_and_huge_arguments"),
    (("scipy.special.xlogy(x, x)",), 2, (1e-30, -1e-30, 1e30, -1e30),
     "(x log x)'' = 1/x; jax's x/y^2 squares x away (-+inf at +-1e-30, 2e-30 at 1e30)",
     "test_entropy_and_x_log_y_curvature_at_tiny_and_huge_arguments"),
    (("scipy.special.xlogy(0, x)",), 2, (1e-30, -1e-30),
     "xlogy(0, y) = 0 for every y, so its curvature is 0; jax gives NaN (0 * inf)",
     "test_entropy_and_x_log_y_curvature_at_tiny_and_huge_arguments"),
    (("scipy.special.xlog1py(x, x)",), 2, (1e30, -1e30),
     "(x log1p x)'' = (2 + x)/(1 + x)^2 ~ 1/x; jax's float32 gives 2/x",
     "test_entropy_and_x_log_y_curvature_at_tiny_and_huge_arguments"),
    (("scipy.special.boxcox(1.5, x)", "scipy.special.boxcox1p(1.5, x)"), 1, (0.0, -0.0, 1e-30, -1e-30),
     "(e^(l L) - 1)/l is smooth in l: its slope at 0 is L^2/2 (0.0822, 0.4198); jax's branch "
     "at l = 0 is constant (0) and expm1(l L)/l cancels near it (+-4.6e13)",
     "test_boxcox_derivatives_at_tiny_and_huge_arguments"),
    (("scipy.special.boxcox(1.5, x)", "scipy.special.boxcox1p(1.5, x)"), 2, (0.0, -0.0, 1e-30, -1e-30),
     "its curvature in l at 0 is L^3/3 (0.0222, 0.2564); jax gives 0, NaN or -1.1e44",
     "test_boxcox_derivatives_at_tiny_and_huge_arguments"),
    (("scipy.special.boxcox(x, -1.5)", "scipy.special.boxcox1p(x, -1.5)"), 1, (1e30,),
     "d/dx (x^l - 1)/l = x^(l-1) = 1e-75 at 1e30; jax's x^l / x underflows to 0",
     "test_boxcox_derivatives_at_tiny_and_huge_arguments"),
    (("scipy.special.boxcox(x, -1.5)", "scipy.special.boxcox1p(x, -1.5)"), 2, (1e30,),
     "(l - 1) x^(l-2) = -2.5e-105 at 1e30; jax gives -0",
     "test_boxcox_derivatives_at_tiny_and_huge_arguments"),
    (("scipy.special.boxcox(x, 1.5)",), 1, (1e-30,),
     "x^(l-1) = 1e-15 at 1e-30; jax's float64 x^l / x underflows to 0",
     "test_boxcox_derivatives_at_tiny_and_huge_arguments"),
    (("scipy.special.boxcox(x, 1.5)",), 2, (1e-30,),
     "(l - 1) x^(l-2) = 5e14 at 1e-30 (float64; jax: 0). In float32 both are wrong: numlir's "
     "x^l underflows to 0 and gives 0, jax gives NaN",
     "test_boxcox_derivatives_at_tiny_and_huge_arguments"),
    (("scipy.special.boxcox(x, x)",), 1, (1e-30,),
     "boxcox(x, x) = log x + x log(x)^2 / 2 + ...: slope ~ 1/x = 1e30; jax's float32 gives inf",
     "test_boxcox_derivatives_at_tiny_and_huge_arguments"),
    (("scipy.special.boxcox(x, x)",), 2, (1e-30,),
     "curvature ~ -1/x^2 = -1e60, -inf in float32; jax gives NaN",
     "test_boxcox_derivatives_at_tiny_and_huge_arguments"),
    (("scipy.special.boxcox1p(x, x)",), 0, (1e-30, -1e-30),
     "boxcox1p(x, x) = expm1(x log1p x)/x = x - x^2/2 + ...: +-1e-30; jax's float32 gives 0",
     "test_boxcox_derivatives_at_tiny_and_huge_arguments"),
    (("scipy.special.boxcox1p(x, x)",), 1, (1e-30, -1e-30),
     "slope 1 - x + ... = 1; jax's float32 gives NaN",
     "test_boxcox_derivatives_at_tiny_and_huge_arguments"),
    (("scipy.special.boxcox1p(x, x)",), 2, (1e-30, -1e-30),
     "curvature -1 + 5x + ... = -1; jax gives NaN or -+5.8e14",
     "test_boxcox_derivatives_at_tiny_and_huge_arguments"),
    *((("scipy.special.boxcox1p(0, x)",), order, (1e-30, -1e-30),
       "boxcox1p(0, l) = (1^l - 1)/l = 0 for every l, so its derivatives are 0; jax gives NaN",
       "test_boxcox_derivatives_at_tiny_and_huge_arguments") for order in (1, 2)),
)
