//! [`StateHash`] for the integers, `bool`, `char`, `()`, the SimMath
//! scalars and vectors, arrays, slices, `Vec`, `Box`, references,
//! `Option` and tuples: the canonical encoding the module documents, a
//! word at a time for the per-type lines and field by field for a desync
//! report.

use laige_core::math::{Fp32Pinned, Fpx16_16, SimScalar, Vec2, Vec3};

use super::{
    DecodeError, FieldHashes, StateHash, StateHasher, StateReader, StateWriter, WordHasher,
    fixed_size_of,
};

macro_rules! impl_int {
    ($($t:ty => $w:ident as $as:ty, $ww:ident as $wt:ty, $r:ident, $dec:expr),* $(,)?) => {$(
        impl StateHash for $t {
            const ENCODABLE: bool = true;
            #[inline]
            fn encode_state(&self, out: &mut StateWriter<'_>) {
                #[allow(clippy::cast_sign_loss, clippy::cast_possible_wrap, reason = "bit-preserving reinterpretation at the declared width")]
                out.$w(*self as $as);
            }
            fn decode_state(input: &mut StateReader<'_>) -> Result<Self, DecodeError> {
                let at = input.position();
                let raw = input.$r()?;
                let dec: fn($as) -> Option<$t> = $dec;
                dec(raw).ok_or_else(|| {
                    input.invalid(at, stringify!($t), u128::from(raw), "a value that fits the platform's pointer width")
                })
            }
            const FIXED_SIZE: usize = size_of::<$as>();
            #[inline]
            fn encode_fixed(&self, out: &mut [u8]) {
                #[allow(clippy::cast_sign_loss, clippy::cast_possible_wrap, reason = "bit-preserving reinterpretation at the declared width")]
                out.copy_from_slice(&(*self as $as).to_le_bytes());
            }
            #[inline]
            fn decode_fixed(bytes: &[u8]) -> Option<Self> {
                let dec: fn($as) -> Option<$t> = $dec;
                dec(<$as>::from_le_bytes(bytes.try_into().ok()?))
            }
            fn hash_layout(hasher: &mut StateHasher) {
                hasher.write_bytes(stringify!($t).as_bytes());
            }
            fn value_text(&self) -> Option<String> {
                Some(self.to_string())
            }
            #[inline]
            fn hash_state(&self, hasher: &mut StateHasher) {
                #[allow(clippy::cast_sign_loss, clippy::cast_possible_wrap, reason = "bit-preserving reinterpretation at the declared width")]
                hasher.$w(*self as $as);
            }
            #[inline]
            fn hash_words(&self, hasher: &mut WordHasher) {
                #[allow(clippy::cast_sign_loss, clippy::cast_possible_wrap, clippy::cast_lossless, reason = "bit-preserving reinterpretation at the declared width, then widened")]
                hasher.$ww((*self as $as) as $wt);
            }
        }
    )*};
}

impl_int!(
    u8 => write_u8 as u8, write_u32 as u32, read_u8, |v| Some(v),
    u16 => write_u16 as u16, write_u32 as u32, read_u16, |v| Some(v),
    u32 => write_u32 as u32, write_u32 as u32, read_u32, |v| Some(v),
    u64 => write_u64 as u64, write_u64 as u64, read_u64, |v| Some(v),
    u128 => write_u128 as u128, write_u128 as u128, read_u128, |v| Some(v),
    usize => write_u64 as u64, write_u64 as u64, read_u64, |v| usize::try_from(v).ok(),
    i8 => write_u8 as u8, write_u32 as u32, read_u8, |v| Some(v.cast_signed()),
    i16 => write_u16 as u16, write_u32 as u32, read_u16, |v| Some(v.cast_signed()),
    i32 => write_u32 as u32, write_u32 as u32, read_u32, |v| Some(v.cast_signed()),
    i64 => write_u64 as u64, write_u64 as u64, read_u64, |v| Some(v.cast_signed()),
    i128 => write_u128 as u128, write_u128 as u128, read_u128, |v| Some(v.cast_signed()),
    isize => write_u64 as u64, write_u64 as u64, read_u64, |v| isize::try_from(v.cast_signed()).ok(),
);

impl StateHash for bool {
    const ENCODABLE: bool = true;
    #[inline]
    fn encode_state(&self, out: &mut StateWriter<'_>) {
        out.write_u8(u8::from(*self));
    }
    fn decode_state(input: &mut StateReader<'_>) -> Result<Self, DecodeError> {
        let at = input.position();
        match input.read_u8()? {
            0 => Ok(false),
            1 => Ok(true),
            v => Err(input.invalid(at, "bool", u128::from(v), "0 or 1")),
        }
    }
    const FIXED_SIZE: usize = 1;
    #[inline]
    fn encode_fixed(&self, out: &mut [u8]) {
        out.copy_from_slice(&[u8::from(*self)]);
    }
    #[inline]
    fn decode_fixed(bytes: &[u8]) -> Option<Self> {
        match bytes {
            [0] => Some(false),
            [1] => Some(true),
            _ => None,
        }
    }
    fn hash_layout(hasher: &mut StateHasher) {
        hasher.write_bytes(b"bool");
    }
    fn value_text(&self) -> Option<String> {
        Some(self.to_string())
    }
    #[inline]
    fn hash_state(&self, hasher: &mut StateHasher) {
        hasher.write_u8(u8::from(*self));
    }
    #[inline]
    fn hash_words(&self, hasher: &mut WordHasher) {
        hasher.write_u32(u32::from(*self));
    }
}

impl StateHash for char {
    const ENCODABLE: bool = true;
    #[inline]
    fn encode_state(&self, out: &mut StateWriter<'_>) {
        out.write_u32(u32::from(*self));
    }
    fn decode_state(input: &mut StateReader<'_>) -> Result<Self, DecodeError> {
        let at = input.position();
        let v = input.read_u32()?;
        char::from_u32(v)
            .ok_or_else(|| input.invalid(at, "char", u128::from(v), "a Unicode scalar value"))
    }
    const FIXED_SIZE: usize = 4;
    #[inline]
    fn encode_fixed(&self, out: &mut [u8]) {
        out.copy_from_slice(&u32::from(*self).to_le_bytes());
    }
    #[inline]
    fn decode_fixed(bytes: &[u8]) -> Option<Self> {
        char::from_u32(u32::from_le_bytes(bytes.try_into().ok()?))
    }
    fn hash_layout(hasher: &mut StateHasher) {
        hasher.write_bytes(b"char");
    }
    fn value_text(&self) -> Option<String> {
        Some(format!("U+{:04X}", u32::from(*self)))
    }
    #[inline]
    fn hash_state(&self, hasher: &mut StateHasher) {
        hasher.write_u32(u32::from(*self));
    }
    #[inline]
    fn hash_words(&self, hasher: &mut WordHasher) {
        hasher.write_u32(u32::from(*self));
    }
}

impl StateHash for () {
    const ENCODABLE: bool = true;
    fn decode_state(_input: &mut StateReader<'_>) -> Result<Self, DecodeError> {
        Ok(())
    }
    fn hash_layout(hasher: &mut StateHasher) {
        hasher.write_bytes(b"()");
    }
    #[inline]
    fn hash_state(&self, _hasher: &mut StateHasher) {}
    #[inline]
    fn hash_words(&self, _hasher: &mut WordHasher) {}
}

impl StateHash for Fpx16_16 {
    const ENCODABLE: bool = true;
    #[inline]
    fn encode_state(&self, out: &mut StateWriter<'_>) {
        out.write_u32(self.to_hash_bits());
    }
    fn decode_state(input: &mut StateReader<'_>) -> Result<Self, DecodeError> {
        Ok(Fpx16_16::from_raw(input.read_u32()?.cast_signed()))
    }
    const FIXED_SIZE: usize = 4;
    #[inline]
    fn encode_fixed(&self, out: &mut [u8]) {
        out.copy_from_slice(&self.to_hash_bits().to_le_bytes());
    }
    #[inline]
    fn decode_fixed(bytes: &[u8]) -> Option<Self> {
        Some(Fpx16_16::from_raw(i32::from_le_bytes(
            bytes.try_into().ok()?,
        )))
    }
    fn hash_layout(hasher: &mut StateHasher) {
        hasher.write_bytes(b"Fpx16_16");
    }
    fn value_text(&self) -> Option<String> {
        Some(self.to_string())
    }
    #[inline]
    fn hash_state(&self, hasher: &mut StateHasher) {
        hasher.write_u32(self.to_hash_bits());
    }
    #[inline]
    fn hash_words(&self, hasher: &mut WordHasher) {
        hasher.write_u32(self.to_hash_bits());
    }
}

impl StateHash for Fp32Pinned {
    const ENCODABLE: bool = true;
    #[inline]
    fn encode_state(&self, out: &mut StateWriter<'_>) {
        out.write_u32(self.to_hash_bits());
    }
    fn decode_state(input: &mut StateReader<'_>) -> Result<Self, DecodeError> {
        Ok(Fp32Pinned::from_bits(input.read_u32()?))
    }
    const FIXED_SIZE: usize = 4;
    #[inline]
    fn encode_fixed(&self, out: &mut [u8]) {
        out.copy_from_slice(&self.to_hash_bits().to_le_bytes());
    }
    #[inline]
    fn decode_fixed(bytes: &[u8]) -> Option<Self> {
        Some(Fp32Pinned::from_bits(u32::from_le_bytes(
            bytes.try_into().ok()?,
        )))
    }
    fn hash_layout(hasher: &mut StateHasher) {
        hasher.write_bytes(b"Fp32Pinned");
    }
    fn value_text(&self) -> Option<String> {
        Some(self.to_string())
    }
    #[inline]
    fn hash_state(&self, hasher: &mut StateHasher) {
        hasher.write_u32(self.to_hash_bits());
    }
    #[inline]
    fn hash_words(&self, hasher: &mut WordHasher) {
        hasher.write_u32(self.to_hash_bits());
    }
}

impl<S: StateHash> StateHash for Vec2<S> {
    const ENCODABLE: bool = S::ENCODABLE;
    #[inline]
    fn encode_state(&self, out: &mut StateWriter<'_>) {
        self.x.encode_state(out);
        self.y.encode_state(out);
    }
    fn decode_state(input: &mut StateReader<'_>) -> Result<Self, DecodeError> {
        let x = S::decode_state(input)?;
        Ok(Vec2 {
            x,
            y: S::decode_state(input)?,
        })
    }
    const FIXED_SIZE: usize = fixed_size_of(&[S::FIXED_SIZE, S::FIXED_SIZE]);
    #[inline]
    fn encode_fixed(&self, out: &mut [u8]) {
        if let Some((x, y)) = out.split_at_mut_checked(S::FIXED_SIZE) {
            self.x.encode_fixed(x);
            self.y.encode_fixed(y);
        }
    }
    #[inline]
    fn decode_fixed(bytes: &[u8]) -> Option<Self> {
        let (x, y) = bytes.split_at_checked(S::FIXED_SIZE)?;
        Some(Vec2 {
            x: S::decode_fixed(x)?,
            y: S::decode_fixed(y)?,
        })
    }
    fn hash_layout(hasher: &mut StateHasher) {
        hasher.write_bytes(b"Vec2<");
        S::hash_layout(hasher);
        hasher.write_bytes(b">");
    }
    #[inline]
    fn hash_state(&self, hasher: &mut StateHasher) {
        self.x.hash_state(hasher);
        self.y.hash_state(hasher);
    }
    #[inline]
    fn hash_words(&self, hasher: &mut WordHasher) {
        self.x.hash_words(hasher);
        self.y.hash_words(hasher);
    }
    fn hash_fields(&self, fields: &mut FieldHashes) -> bool {
        fields.field("x", &self.x);
        fields.field("y", &self.y);
        true
    }
}

impl<S: StateHash> StateHash for Vec3<S> {
    const ENCODABLE: bool = S::ENCODABLE;
    #[inline]
    fn encode_state(&self, out: &mut StateWriter<'_>) {
        self.x.encode_state(out);
        self.y.encode_state(out);
        self.z.encode_state(out);
    }
    fn decode_state(input: &mut StateReader<'_>) -> Result<Self, DecodeError> {
        let x = S::decode_state(input)?;
        let y = S::decode_state(input)?;
        Ok(Vec3 {
            x,
            y,
            z: S::decode_state(input)?,
        })
    }
    const FIXED_SIZE: usize = fixed_size_of(&[S::FIXED_SIZE, S::FIXED_SIZE, S::FIXED_SIZE]);
    #[inline]
    fn encode_fixed(&self, out: &mut [u8]) {
        if let Some((x, yz)) = out.split_at_mut_checked(S::FIXED_SIZE)
            && let Some((y, z)) = yz.split_at_mut_checked(S::FIXED_SIZE)
        {
            self.x.encode_fixed(x);
            self.y.encode_fixed(y);
            self.z.encode_fixed(z);
        }
    }
    #[inline]
    fn decode_fixed(bytes: &[u8]) -> Option<Self> {
        let (x, yz) = bytes.split_at_checked(S::FIXED_SIZE)?;
        let (y, z) = yz.split_at_checked(S::FIXED_SIZE)?;
        Some(Vec3 {
            x: S::decode_fixed(x)?,
            y: S::decode_fixed(y)?,
            z: S::decode_fixed(z)?,
        })
    }
    fn hash_layout(hasher: &mut StateHasher) {
        hasher.write_bytes(b"Vec3<");
        S::hash_layout(hasher);
        hasher.write_bytes(b">");
    }
    #[inline]
    fn hash_state(&self, hasher: &mut StateHasher) {
        self.x.hash_state(hasher);
        self.y.hash_state(hasher);
        self.z.hash_state(hasher);
    }
    #[inline]
    fn hash_words(&self, hasher: &mut WordHasher) {
        self.x.hash_words(hasher);
        self.y.hash_words(hasher);
        self.z.hash_words(hasher);
    }
    fn hash_fields(&self, fields: &mut FieldHashes) -> bool {
        fields.field("x", &self.x);
        fields.field("y", &self.y);
        fields.field("z", &self.z);
        true
    }
}

impl<T: StateHash, const N: usize> StateHash for [T; N] {
    const ENCODABLE: bool = T::ENCODABLE;
    #[inline]
    fn encode_state(&self, out: &mut StateWriter<'_>) {
        for v in self {
            v.encode_state(out);
        }
    }
    fn decode_state(input: &mut StateReader<'_>) -> Result<Self, DecodeError> {
        let mut values = Vec::with_capacity(N.min(input.remaining()));
        for _ in 0..N {
            values.push(T::decode_state(input)?);
        }
        Ok(values
            .try_into()
            .unwrap_or_else(|_| unreachable!("N values were decoded")))
    }
    fn hash_layout(hasher: &mut StateHasher) {
        hasher.write_bytes(b"[");
        T::hash_layout(hasher);
        hasher.write_bytes(b";");
        hasher.write_u64(N as u64);
        hasher.write_bytes(b"]");
    }
    #[inline]
    fn hash_state(&self, hasher: &mut StateHasher) {
        for v in self {
            v.hash_state(hasher);
        }
    }
    #[inline]
    fn hash_words(&self, hasher: &mut WordHasher) {
        for v in self {
            v.hash_words(hasher);
        }
    }
}

impl<T: StateHash> StateHash for [T] {
    #[inline]
    fn encode_state(&self, out: &mut StateWriter<'_>) {
        out.write_u64(self.len() as u64);
        for v in self {
            v.encode_state(out);
        }
    }
    #[inline]
    fn hash_state(&self, hasher: &mut StateHasher) {
        (self.len() as u64).hash_state(hasher);
        for v in self {
            v.hash_state(hasher);
        }
    }
    #[inline]
    fn hash_words(&self, hasher: &mut WordHasher) {
        hasher.write_u64(self.len() as u64);
        for v in self {
            v.hash_words(hasher);
        }
    }
}

impl<T: StateHash> StateHash for Vec<T> {
    const ENCODABLE: bool = T::ENCODABLE;
    #[inline]
    fn encode_state(&self, out: &mut StateWriter<'_>) {
        self.as_slice().encode_state(out);
    }
    fn decode_state(input: &mut StateReader<'_>) -> Result<Self, DecodeError> {
        let n = input.read_len("Vec length")?;
        let mut values = Vec::with_capacity(n);
        for _ in 0..n {
            values.push(T::decode_state(input)?);
        }
        Ok(values)
    }
    fn hash_layout(hasher: &mut StateHasher) {
        hasher.write_bytes(b"Vec<");
        T::hash_layout(hasher);
        hasher.write_bytes(b">");
    }
    #[inline]
    fn hash_state(&self, hasher: &mut StateHasher) {
        self.as_slice().hash_state(hasher);
    }
    #[inline]
    fn hash_words(&self, hasher: &mut WordHasher) {
        self.as_slice().hash_words(hasher);
    }
}

// Boxed values (sized or not) hash as their contents but are not
// encodable: an encoded snapshot names the type (store the value itself).
impl<T: StateHash + ?Sized> StateHash for Box<T> {
    #[inline]
    fn hash_state(&self, hasher: &mut StateHasher) {
        (**self).hash_state(hasher);
    }
    #[inline]
    fn hash_words(&self, hasher: &mut WordHasher) {
        (**self).hash_words(hasher);
    }
    fn hash_fields(&self, fields: &mut FieldHashes) -> bool {
        (**self).hash_fields(fields)
    }
    fn value_text(&self) -> Option<String> {
        (**self).value_text()
    }
}

impl<T: StateHash + ?Sized> StateHash for &T {
    #[inline]
    fn encode_state(&self, out: &mut StateWriter<'_>) {
        (**self).encode_state(out);
    }
    #[inline]
    fn hash_state(&self, hasher: &mut StateHasher) {
        (**self).hash_state(hasher);
    }
    #[inline]
    fn hash_words(&self, hasher: &mut WordHasher) {
        (**self).hash_words(hasher);
    }
    fn hash_fields(&self, fields: &mut FieldHashes) -> bool {
        (**self).hash_fields(fields)
    }
    fn value_text(&self) -> Option<String> {
        (**self).value_text()
    }
}

impl<T: StateHash> StateHash for Option<T> {
    const ENCODABLE: bool = T::ENCODABLE;
    #[inline]
    fn encode_state(&self, out: &mut StateWriter<'_>) {
        match self {
            None => out.write_u8(0),
            Some(v) => {
                out.write_u8(1);
                v.encode_state(out);
            }
        }
    }
    fn decode_state(input: &mut StateReader<'_>) -> Result<Self, DecodeError> {
        let at = input.position();
        match input.read_u8()? {
            0 => Ok(None),
            1 => T::decode_state(input).map(Some),
            v => Err(input.invalid(at, "Option tag", u128::from(v), "0 (None) or 1 (Some)")),
        }
    }
    fn hash_layout(hasher: &mut StateHasher) {
        hasher.write_bytes(b"Option<");
        T::hash_layout(hasher);
        hasher.write_bytes(b">");
    }
    #[inline]
    fn hash_state(&self, hasher: &mut StateHasher) {
        match self {
            None => hasher.write_u8(0),
            Some(v) => {
                hasher.write_u8(1);
                v.hash_state(hasher);
            }
        }
    }
    #[inline]
    fn hash_words(&self, hasher: &mut WordHasher) {
        match self {
            None => hasher.write_u32(0),
            Some(v) => {
                hasher.write_u32(1);
                v.hash_words(hasher);
            }
        }
    }
}

macro_rules! impl_tuple {
    ($($name:ident . $idx:tt),+) => {
        impl<$($name: StateHash),+> StateHash for ($($name,)+) {
            const ENCODABLE: bool = true $(&& $name::ENCODABLE)+;
            #[inline]
            fn encode_state(&self, out: &mut StateWriter<'_>) {
                $(self.$idx.encode_state(out);)+
            }
            fn decode_state(input: &mut StateReader<'_>) -> Result<Self, DecodeError> {
                Ok(($($name::decode_state(input)?,)+))
            }
            const FIXED_SIZE: usize = fixed_size_of(&[$($name::FIXED_SIZE),+]);
            #[inline]
            fn encode_fixed(&self, out: &mut [u8]) {
                let rest = out;
                $(
                    let Some((part, rest)) = rest.split_at_mut_checked($name::FIXED_SIZE) else {
                        return;
                    };
                    self.$idx.encode_fixed(part);
                )+
                let _ = rest;
            }
            #[inline]
            #[allow(non_snake_case, reason = "each value bound by its type parameter's name")]
            fn decode_fixed(bytes: &[u8]) -> Option<Self> {
                let rest = bytes;
                $(
                    let (part, rest) = rest.split_at_checked($name::FIXED_SIZE)?;
                    let $name = $name::decode_fixed(part)?;
                )+
                let _ = rest;
                Some(($($name,)+))
            }
            fn hash_layout(hasher: &mut StateHasher) {
                hasher.write_bytes(b"(");
                $($name::hash_layout(hasher); hasher.write_bytes(b",");)+
                hasher.write_bytes(b")");
            }
            #[inline]
            fn hash_state(&self, hasher: &mut StateHasher) {
                $(self.$idx.hash_state(hasher);)+
            }
            #[inline]
            fn hash_words(&self, hasher: &mut WordHasher) {
                $(self.$idx.hash_words(hasher);)+
            }
            fn hash_fields(&self, fields: &mut FieldHashes) -> bool {
                $(fields.field(stringify!($idx), &self.$idx);)+
                true
            }
        }
    };
}

impl_tuple!(A.0);
impl_tuple!(A.0, B.1);
impl_tuple!(A.0, B.1, C.2);
impl_tuple!(A.0, B.1, C.2, D.3);
