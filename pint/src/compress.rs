//! Value compression into a few bits: multiplicative (relative error bounded by
//! base - 1) or additive (absolute error bounded by the step), with randomised
//! rounding between the two neighbouring codes so the decoded value is unbiased.

use crate::error::{ConfigError, invalid};

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    /// code c stands for min * base^c.
    Multiplicative { min: f64, ln_base: f64 },
    /// code c stands for c * step.
    Additive { step: f64 },
}

/// A b-bit code for non-negative values.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ValueCodec {
    bits: u32,
    kind: Kind,
}

impl ValueCodec {
    /// Codes 0..=2^b-1 spaced geometrically over [min, max]; values outside clamp.
    pub fn multiplicative(bits: u32, min: f64, max: f64) -> Result<Self, ConfigError> {
        check_bits(bits)?;
        if !(min > 0.0 && max > min && max.is_finite()) {
            return Err(invalid(format!("multiplicative range [{min}, {max}] must have 0 < min < max")));
        }
        let top = f64::from(max_code(bits));
        Ok(ValueCodec { bits, kind: Kind::Multiplicative { min, ln_base: (max / min).ln() / top } })
    }

    /// Codes 0..=2^b-1 spaced by `step`; values above the last code clamp.
    pub fn additive(bits: u32, step: f64) -> Result<Self, ConfigError> {
        check_bits(bits)?;
        if !(step > 0.0 && step.is_finite()) {
            return Err(invalid(format!("additive step {step} must be positive")));
        }
        Ok(ValueCodec { bits, kind: Kind::Additive { step } })
    }

    pub fn bits(&self) -> u32 {
        self.bits
    }

    pub fn max_code(&self) -> u32 {
        max_code(self.bits)
    }

    /// Largest relative error (multiplicative) or absolute error (additive) of one
    /// value inside the range.
    pub fn error_bound(&self) -> f64 {
        match self.kind {
            Kind::Multiplicative { ln_base, .. } => ln_base.exp() - 1.0,
            Kind::Additive { step } => step,
        }
    }

    /// Code of `value`; `coin` is a uniform 64-bit variate for the rounding.
    #[inline]
    pub fn encode(&self, value: f64, coin: u64) -> u32 {
        let top = self.max_code();
        let x = match self.kind {
            Kind::Multiplicative { min, ln_base } => {
                if !(value > min) {
                    return 0;
                }
                (value / min).ln() / ln_base
            }
            Kind::Additive { step } => {
                if !(value > 0.0) {
                    return 0;
                }
                value / step
            }
        };
        if x >= f64::from(top) {
            return top;
        }
        let lo = x.floor() as u32;
        let (a, b) = (self.decode(lo), self.decode(lo + 1));
        let p_up = ((value - a) / (b - a)).clamp(0.0, 1.0);
        let up = (coin as f64) < p_up * 18_446_744_073_709_551_616.0;
        lo + u32::from(up)
    }

    #[inline]
    pub fn decode(&self, code: u32) -> f64 {
        match self.kind {
            Kind::Multiplicative { min, ln_base } => min * (f64::from(code) * ln_base).exp(),
            Kind::Additive { step } => f64::from(code) * step,
        }
    }
}

fn max_code(bits: u32) -> u32 {
    ((1u64 << bits) - 1) as u32
}

fn check_bits(bits: u32) -> Result<(), ConfigError> {
    if !(1..=16).contains(&bits) {
        return Err(invalid(format!("value code of {bits} bits not in 1..=16")));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::mix64;

    #[test]
    fn multiplicative_codes_stay_within_relative_bound() {
        let c = ValueCodec::multiplicative(8, 100.0, 1e7).unwrap();
        let eps = c.error_bound();
        assert!(eps < 0.05, "eps {eps}");
        for i in 0..10_000u64 {
            let v = 100.0 + (mix64(i) % 9_999_900) as f64;
            let d = c.decode(c.encode(v, mix64(i ^ 77)));
            assert!((d / v - 1.0).abs() <= eps + 1e-9, "{v} -> {d}");
        }
    }

    #[test]
    fn randomised_rounding_is_unbiased() {
        let c = ValueCodec::multiplicative(4, 1.0, 1000.0).unwrap();
        let v = 37.0;
        let n = 200_000u64;
        let mean = (0..n).map(|i| c.decode(c.encode(v, mix64(i)))).sum::<f64>() / n as f64;
        assert!((mean / v - 1.0).abs() < 0.01, "mean {mean}");
        let a = ValueCodec::additive(4, 10.0).unwrap();
        let mean = (0..n).map(|i| a.decode(a.encode(33.0, mix64(i)))).sum::<f64>() / n as f64;
        assert!((mean - 33.0).abs() < 0.1, "mean {mean}");
    }

    #[test]
    fn clamps_and_rejects() {
        let c = ValueCodec::additive(4, 10.0).unwrap();
        assert_eq!(c.encode(1e9, 0), 15);
        assert_eq!(c.encode(-5.0, 0), 0);
        assert_eq!(c.encode(f64::NAN, 0), 0);
        assert!(ValueCodec::multiplicative(8, 0.0, 1.0).is_err());
        assert!(ValueCodec::multiplicative(0, 1.0, 2.0).is_err());
        assert!(ValueCodec::additive(8, -1.0).is_err());
    }
}
