//! `init_subscriber`: installs once, reports a second call, rejects bad
//! filters with an error naming the field and value. One test: it installs
//! the process-global subscriber and sets an environment variable.

#![cfg(feature = "subscriber")]
#![allow(
    unsafe_code,
    reason = "std::env::set_var is unsafe in edition 2024; see SAFETY below"
)]

use laige_core::ErrorCode;
use laige_core::diag::{self, SubscriberConfig, SubscriberInit};

#[test]
fn installs_once_and_rejects_bad_filters_first() {
    const VAR: &str = "LAIGE_DIAG_SUBSCRIBER_TEST_FILTER";
    let cfg = SubscriberConfig {
        env_var: Some(VAR.into()),
        ..SubscriberConfig::default()
    };

    // SAFETY: this test binary has this one test; no other thread of the
    // process reads or writes the environment while it runs.
    unsafe { std::env::set_var(VAR, "warn,laige_sim=loud") };
    let err = diag::init_subscriber(&cfg).unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidArgument);
    assert_eq!(err.id(), diag::FILTER_INVALID);
    assert_eq!(err.field(), Some(VAR));
    insta::assert_snapshot!("bad_env_filter", err.to_string());

    // SAFETY: as above.
    unsafe { std::env::remove_var(VAR) };
    let bad_default = SubscriberConfig {
        default_filter: "info,=warn=".into(),
        ..cfg.clone()
    };
    let err = diag::init_subscriber(&bad_default).unwrap_err();
    assert_eq!(err.field(), Some("default_filter"));

    // Nothing was installed by the failures.
    assert_eq!(
        diag::init_subscriber(&cfg).unwrap(),
        SubscriberInit::Installed
    );
    assert_eq!(
        diag::init_subscriber(&cfg).unwrap(),
        SubscriberInit::AlreadyInstalled
    );
    // And a bad filter is still an error once installed.
    assert!(diag::init_subscriber(&bad_default).is_err());
}
