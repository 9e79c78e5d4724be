use std::fmt;

/// A PINT configuration that cannot work; the message says which parameter and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError(pub String);

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid PINT configuration: {}", self.0)
    }
}

impl std::error::Error for ConfigError {}

pub(crate) fn invalid(msg: impl Into<String>) -> ConfigError {
    ConfigError(msg.into())
}
