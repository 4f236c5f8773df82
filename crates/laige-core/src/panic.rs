//! Reading a caught panic.

use std::any::Any;

/// The message of a caught panic payload: the `&str` or `String` that
/// `panic!` carries, or `"<non-string panic payload>"` for anything else
/// (a `panic_any` value). No allocation.
///
/// ```
/// use laige_core::panic_message;
/// let payload = std::panic::catch_unwind(|| panic!("tick {}", 3)).unwrap_err();
/// assert_eq!(panic_message(payload.as_ref()), "tick 3");
/// let payload = std::panic::catch_unwind(|| std::panic::panic_any(7_u8)).unwrap_err();
/// assert_eq!(panic_message(payload.as_ref()), "<non-string panic payload>");
/// ```
#[must_use]
pub fn panic_message(payload: &(dyn Any + Send)) -> &str {
    if let Some(s) = payload.downcast_ref::<&'static str>() {
        s
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.as_str()
    } else {
        "<non-string panic payload>"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_both_string_payloads_and_names_the_rest() {
        let boxed: Box<dyn Any + Send> = Box::new("static");
        assert_eq!(panic_message(boxed.as_ref()), "static");
        let boxed: Box<dyn Any + Send> = Box::new(String::from("owned"));
        assert_eq!(panic_message(boxed.as_ref()), "owned");
        let boxed: Box<dyn Any + Send> = Box::new(42_i32);
        assert_eq!(panic_message(boxed.as_ref()), "<non-string panic payload>");
    }
}
