//! Flow-size distributions from empirical CDF files ("bytes cdf" per line).

use rand::Rng;

pub const WEB_SEARCH_CDF: &str = include_str!("../../data/web_search.cdf");
pub const DATA_MINING_CDF: &str = include_str!("../../data/data_mining.cdf");

#[derive(Clone, Debug)]
pub struct SizeDistribution {
    /// (bytes, cumulative probability), strictly increasing in probability.
    points: Vec<(f64, f64)>,
}

impl SizeDistribution {
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut points: Vec<(f64, f64)> = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let mut it = line.split_whitespace();
            let (Some(b), Some(c), None) = (it.next(), it.next(), it.next()) else {
                return Err(format!("cdf line {}: expected 'bytes cdf'", i + 1));
            };
            let b: f64 = b
                .parse()
                .map_err(|_| format!("cdf line {}: bad size '{b}'", i + 1))?;
            let c: f64 = c
                .parse()
                .map_err(|_| format!("cdf line {}: bad probability '{c}'", i + 1))?;
            if !(b.is_finite() && b >= 0.0 && (0.0..=1.0).contains(&c)) {
                return Err(format!(
                    "cdf line {}: size must be >= 0 and probability in [0, 1]",
                    i + 1
                ));
            }
            if let Some(&(pb, pc)) = points.last()
                && (b < pb || c < pc)
            {
                return Err(format!(
                    "cdf line {}: sizes and probabilities must not decrease",
                    i + 1
                ));
            }
            points.push((b, c));
        }
        match points.last() {
            Some(&(_, c)) if (c - 1.0).abs() < 1e-9 => Ok(SizeDistribution { points }),
            _ => Err("cdf must end at probability 1".into()),
        }
    }

    /// Size in bytes for uniform `u` in [0, 1).
    pub fn quantile(&self, u: f64) -> f64 {
        let mut prev = (0.0, 0.0);
        for &(b, c) in &self.points {
            if u <= c {
                if c <= prev.1 {
                    return b;
                }
                return prev.0 + (b - prev.0) * (u - prev.1) / (c - prev.1);
            }
            prev = (b, c);
        }
        prev.0
    }

    pub fn sample_bytes<R: Rng>(&self, rng: &mut R) -> f64 {
        self.quantile(rng.r#gen::<f64>())
    }

    /// Mean size in bytes (exact for the piecewise-linear CDF).
    pub fn mean_bytes(&self) -> f64 {
        let mut prev = (0.0, 0.0);
        let mut m = 0.0;
        for &(b, c) in &self.points {
            m += (c - prev.1) * (b + prev.0) / 2.0;
            prev = (b, c);
        }
        m
    }
}

/// Packets needed for `bytes` of payload (at least one).
pub fn packets_for(bytes: f64, payload: u32) -> u32 {
    ((bytes / payload as f64).ceil() as u64).clamp(1, u32::MAX as u64) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_distributions_parse_with_published_means() {
        let ws = SizeDistribution::parse(WEB_SEARCH_CDF).unwrap();
        let dm = SizeDistribution::parse(DATA_MINING_CDF).unwrap();
        // Interpolated means lie between the published lower/upper bounds.
        assert!(
            (987_600.0..2_434_900.0).contains(&ws.mean_bytes()),
            "{}",
            ws.mean_bytes()
        );
        assert!(
            (2_116_598.0..23_199_799.0).contains(&dm.mean_bytes()),
            "{}",
            dm.mean_bytes()
        );
        assert_eq!(ws.quantile(0.15), 10_000.0);
        assert!((ws.quantile(0.175) - 15_000.0).abs() < 1e-6);
        assert_eq!(ws.quantile(1.0), 30_000_000.0);
    }

    #[test]
    fn bad_cdfs_are_rejected() {
        assert!(SizeDistribution::parse("0 0\n10 0.5").is_err());
        assert!(SizeDistribution::parse("0 0\n10 0.6\n5 1").is_err());
        assert!(SizeDistribution::parse("0 0\nten 1").is_err());
        assert!(SizeDistribution::parse("").is_err());
    }
}
