//! # laige-macros
//!
//! Derive macros for laige. One today: `#[derive(StateHash)]`, re-exported
//! by `laige-sim` as `laige_sim::StateHash` and by `laige-engine` as
//! `laige_engine::StateHash`; the generated code names the crate the
//! deriving crate depends on (laige-sim, else laige-engine's `sim`), found
//! in its `Cargo.toml`. A crate that reaches laige-sim through a third
//! crate names the path with `#[state_hash(crate = that::sim)]`.
//!
//! The derive feeds every field, in declaration order, into the
//! deterministic state hasher (`hash_state`) and into the per-type lines'
//! word hasher (`hash_words`), and reports every field by name for a
//! desync report (`hash_fields`: `name`, a tuple field's index, an enum's
//! variant name first, nested derived fields as a path like `velocity.x`),
//! writes and reads the same encoding as bytes (`encode_state`,
//! `decode_state`: the value codec of encoded snapshots; `ENCODABLE` when
//! every field's type is) and describes it (`hash_layout`: the type's
//! name, each field's name and layout, so two builds that disagree on a
//! type's shape are told apart). It adds no escape hatch (no `skip`
//! attribute): a field whose type does not implement `StateHash` — a raw
//! `f32` or `f64` above all — is a compile error, which is the compile-time
//! half of the "sim state is SimMath only" rule (the determinism lint is the
//! other half). See the `laige_sim::World` docs, "State hash".

use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as TokenStream2};
use quote::quote;
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields, GenericParam, parse_macro_input, parse_quote};

/// Derives `laige_sim::StateHash` for a struct or an enum.
///
/// * Structs (named, tuple, unit): every field in declaration order.
/// * Enums: the variant's declaration index as a `u32` (not its
///   discriminant value, so reordering discriminants without reordering
///   variants does not change the encoding), then the variant's fields in
///   declaration order.
/// * Unions are rejected (their active field is not knowable).
/// * Every type parameter gains a `StateHash` bound.
/// * `hash_words` feeds the same fields (the variant index as a 32-bit value);
///   `hash_fields` reports each field as `fields.field("name", value)`
///   (tuple fields `"0"`, `"1"`, …), an enum's fields under
///   `fields.variant("Variant", …)`, and returns `false` for a unit struct
///   (nothing to break down).
///
/// Each field's type must implement `StateHash`; `f32`/`f64` do not, so a
/// component holding a raw float does not compile.
///
/// The generated code names `StateHash` and `StateHasher` under the crate
/// the deriving crate depends on, read from its `Cargo.toml`:
/// `::laige_sim` (renames followed), else `::laige_engine::sim` for a game
/// on laige-engine alone. A crate that reaches laige-sim another way
/// names the path: `#[state_hash(crate = my_engine::sim)]` (a module that
/// re-exports laige-sim's root).
#[proc_macro_derive(StateHash, attributes(state_hash))]
pub fn derive_state_hash(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    match expand(input) {
        Ok(tokens) => tokens.into(),
        Err(err) => err.to_compile_error().into(),
    }
}

/// The path of laige-sim's root (where `StateHash` and `StateHasher`
/// live): `<path>` from `#[state_hash(crate = <path>)]`; else, read from
/// the deriving crate's `Cargo.toml` (proc-macro-crate), `::laige_sim`
/// (under its renamed name, if renamed) when it depends on laige-sim,
/// `::laige_engine::sim` when it depends on laige-engine only, and
/// `::laige_sim` when neither can be found (laige-sim itself, which names
/// itself `laige_sim`).
fn sim_root(input: &DeriveInput) -> syn::Result<syn::Path> {
    let mut root: Option<syn::Path> = None;
    for attr in input
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("state_hash"))
    {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("crate") {
                root = Some(meta.value()?.parse()?);
                Ok(())
            } else {
                Err(meta.error("unknown state_hash attribute; expected `crate = <path>`"))
            }
        })?;
    }
    Ok(match root {
        Some(root) => root,
        None => found_root(),
    })
}

/// The root found from the deriving crate's dependencies.
fn found_root() -> syn::Path {
    use proc_macro_crate::{FoundCrate, crate_name};
    let ident = |name: &str| syn::Ident::new(name, proc_macro2::Span::call_site());
    match crate_name("laige-sim") {
        Ok(FoundCrate::Name(name)) => {
            let name = ident(&name);
            return parse_quote!(::#name);
        }
        // laige-sim deriving for itself: it is `extern crate self as laige_sim`.
        Ok(FoundCrate::Itself) => return parse_quote!(::laige_sim),
        Err(_) => {}
    }
    match crate_name("laige-engine") {
        Ok(FoundCrate::Name(name)) => {
            let name = ident(&name);
            parse_quote!(::#name::sim)
        }
        // laige-engine's own examples, tests and doctests link it by name.
        Ok(FoundCrate::Itself) => parse_quote!(::laige_engine::sim),
        Err(_) => parse_quote!(::laige_sim),
    }
}

fn expand(mut input: DeriveInput) -> syn::Result<TokenStream2> {
    let krate = sim_root(&input)?;
    for param in &mut input.generics.params {
        if let GenericParam::Type(ty) = param {
            ty.bounds.push(parse_quote!(#krate::StateHash));
        }
    }
    let name = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let state = feed_body(&input, &krate, Feed::State)?;
    let words = feed_body(&input, &krate, Feed::Words)?;
    let fields = fields_body(&input);
    let encode = feed_body(&input, &krate, Feed::Encode)?;
    let decode = decode_body(&input, &krate);
    let layout = layout_body(&input, &krate);
    let field_types = all_fields(&input).map(|f| &f.ty);
    let fixed = fixed_body(&input, &krate);
    Ok(quote! {
        #[automatically_derived]
        impl #impl_generics #krate::StateHash for #name #ty_generics #where_clause {
            #[inline]
            fn hash_state(&self, hasher: &mut #krate::StateHasher) {
                #state
            }
            #[inline]
            fn hash_words(&self, hasher: &mut #krate::WordHasher) {
                #words
            }
            fn hash_fields(&self, fields: &mut #krate::FieldHashes) -> bool {
                #fields
            }
            const ENCODABLE: bool = true #(&& <#field_types as #krate::StateHash>::ENCODABLE)*;
            #[inline]
            fn encode_state(&self, hasher: &mut #krate::StateWriter<'_>) {
                #encode
            }
            fn decode_state(
                input: &mut #krate::StateReader<'_>,
            ) -> ::core::result::Result<Self, #krate::DecodeError> {
                #decode
            }
            fn hash_layout(hasher: &mut #krate::StateHasher) {
                #layout
            }
            #fixed
        }
    })
}

/// A struct's `FIXED_SIZE`, `encode_fixed` and `decode_fixed`: its
/// fields' fixed encodings one after the other, in declaration order (the
/// bytes of `encode_state`); nothing for an enum (its encoding's length
/// varies with the variant) or a union.
fn fixed_body(input: &DeriveInput, krate: &syn::Path) -> TokenStream2 {
    let Data::Struct(data) = &input.data else {
        return TokenStream2::new();
    };
    let name = &input.ident;
    let (pattern, bindings) = pattern(&data.fields);
    let types: Vec<&syn::Type> = data.fields.iter().map(|f| &f.ty).collect();
    let value = match &data.fields {
        Fields::Named(named) => {
            let names = named.named.iter().map(|f| f.ident.as_ref());
            quote! { #name { #(#names: #bindings),* } }
        }
        Fields::Unnamed(_) => quote! { #name ( #(#bindings),* ) },
        Fields::Unit => quote! { #name },
    };
    quote! {
        const FIXED_SIZE: usize = #krate::fixed_size_of(
            &[#(<#types as #krate::StateHash>::FIXED_SIZE),*],
        );
        #[inline]
        fn encode_fixed(&self, out: &mut [u8]) {
            let #name #pattern = self;
            let rest = out;
            #(
                let ::core::option::Option::Some((part, rest)) =
                    rest.split_at_mut_checked(<#types as #krate::StateHash>::FIXED_SIZE)
                else {
                    return;
                };
                <#types as #krate::StateHash>::encode_fixed(#bindings, part);
            )*
            let _ = rest;
        }
        #[inline]
        fn decode_fixed(bytes: &[u8]) -> ::core::option::Option<Self> {
            let rest = bytes;
            #(
                let (part, rest) =
                    rest.split_at_checked(<#types as #krate::StateHash>::FIXED_SIZE)?;
                let #bindings = <#types as #krate::StateHash>::decode_fixed(part)?;
            )*
            let _ = rest;
            ::core::option::Option::Some(#value)
        }
    }
}

/// Which of the two encodings' sinks a body feeds: the canonical
/// `StateHasher` (`hash_state`) or the per-type lines' `WordHasher`
/// (`hash_words`, the variant index as one word).
#[derive(Clone, Copy)]
enum Feed {
    State,
    Words,
    Encode,
}

/// The body of `hash_state` or `hash_words`: every field in declaration
/// order (an enum's variant index first).
fn feed_body(input: &DeriveInput, krate: &syn::Path, feed: Feed) -> syn::Result<TokenStream2> {
    let name = &input.ident;
    Ok(match &input.data {
        Data::Struct(data) => {
            let (pattern, feeds) = destructure(&data.fields, krate, feed);
            let silence = data.fields.is_empty().then(|| quote! { let _ = hasher; });
            quote! {
                let #name #pattern = self;
                #silence
                #(#feeds)*
            }
        }
        Data::Enum(data) => {
            let arms = data.variants.iter().enumerate().map(|(idx, variant)| {
                let idx = u32::try_from(idx).unwrap_or(u32::MAX);
                let vname = &variant.ident;
                let (pattern, feeds) = destructure(&variant.fields, krate, feed);
                // The same tag for every sink: the index as a `u32`.
                let tag = quote! { hasher.write_u32(#idx); };
                let _ = feed;
                quote! {
                    #name::#vname #pattern => {
                        #tag
                        #(#feeds)*
                    }
                }
            });
            if data.variants.is_empty() {
                quote! {
                    let _ = hasher;
                    match *self {}
                }
            } else {
                quote! {
                    match self {
                        #(#arms)*
                    }
                }
            }
        }
        Data::Union(u) => {
            return Err(syn::Error::new(
                u.union_token.span(),
                "StateHash cannot be derived for a union: its active field is unknown; \
                 use a struct or an enum",
            ));
        }
    })
}

/// The body of `hash_fields`: one `fields.field(name, value)` per field
/// (tuple fields by index), inside `fields.variant(name, ..)` for an
/// enum; `false` for a struct without fields and an empty enum.
fn fields_body(input: &DeriveInput) -> TokenStream2 {
    let name = &input.ident;
    match &input.data {
        Data::Struct(data) if data.fields.is_empty() => quote! {
            let _ = fields;
            false
        },
        Data::Struct(data) => {
            let (pattern, reports) = report_fields(&data.fields);
            quote! {
                let #name #pattern = self;
                #(#reports)*
                true
            }
        }
        Data::Enum(data) if data.variants.is_empty() => quote! {
            let _ = fields;
            match *self {}
        },
        Data::Enum(data) => {
            let arms = data.variants.iter().map(|variant| {
                let vname = &variant.ident;
                let vstr = vname.unraw().to_string();
                let (pattern, reports) = report_fields(&variant.fields);
                let inner = if variant.fields.is_empty() {
                    quote! { |_| {} }
                } else {
                    quote! { |fields| { #(#reports)* } }
                };
                quote! {
                    #name::#vname #pattern => fields.variant(#vstr, #inner),
                }
            });
            quote! {
                match self {
                    #(#arms)*
                }
                true
            }
        }
        Data::Union(_) => quote! { false },
    }
}

/// A pattern binding every field and one `fields.field(..)` per binding.
fn report_fields(fields: &Fields) -> (TokenStream2, Vec<TokenStream2>) {
    let (pattern, bindings) = pattern(fields);
    let reports = fields
        .iter()
        .enumerate()
        .zip(&bindings)
        .map(|((i, field), binding)| {
            let label = field
                .ident
                .as_ref()
                .map_or_else(|| i.to_string(), |id| id.unraw().to_string());
            quote! { fields.field(#label, #binding); }
        })
        .collect();
    (pattern, reports)
}

/// A pattern binding every field (`{ a: __f0, b: __f1 }`, `(__f0, __f1)` or
/// nothing) and the bindings.
fn pattern(fields: &Fields) -> (TokenStream2, Vec<syn::Ident>) {
    let bindings: Vec<syn::Ident> = (0..fields.len())
        .map(|i| syn::Ident::new(&format!("__laige_f{i}"), Span::call_site()))
        .collect();
    let pattern = match fields {
        Fields::Named(named) => {
            let names = named.named.iter().map(|f| f.ident.as_ref());
            quote! { { #(#names: #bindings),* } }
        }
        Fields::Unnamed(_) => quote! { ( #(#bindings),* ) },
        Fields::Unit => quote! {},
    };
    (pattern, bindings)
}

/// A pattern binding every field and one hashing statement per binding
/// (`hash_state` or `hash_words`).
fn destructure(
    fields: &Fields,
    krate: &syn::Path,
    feed: Feed,
) -> (TokenStream2, Vec<TokenStream2>) {
    let (pattern, bindings) = pattern(fields);
    let feeds = fields
        .iter()
        .zip(&bindings)
        .map(|(field, binding)| {
            let ty = &field.ty;
            // Naming the field type makes the "not implemented" error point
            // at the offending field.
            match feed {
                Feed::State => quote::quote_spanned! {ty.span()=>
                    <#ty as #krate::StateHash>::hash_state(#binding, hasher);
                },
                Feed::Words => quote::quote_spanned! {ty.span()=>
                    <#ty as #krate::StateHash>::hash_words(#binding, hasher);
                },
                Feed::Encode => quote::quote_spanned! {ty.span()=>
                    <#ty as #krate::StateHash>::encode_state(#binding, hasher);
                },
            }
        })
        .collect();
    (pattern, feeds)
}

/// Every field of a struct, or of every variant of an enum.
fn all_fields(input: &DeriveInput) -> Box<dyn Iterator<Item = &syn::Field> + '_> {
    match &input.data {
        Data::Struct(data) => Box::new(data.fields.iter()),
        Data::Enum(data) => Box::new(data.variants.iter().flat_map(|v| v.fields.iter())),
        Data::Union(_) => Box::new(std::iter::empty()),
    }
}

/// A constructor of `path` from its fields, each decoded in declaration
/// order (`Path { a: .., b: .. }`, `Path(.., ..)` or `Path`).
fn construct(path: &TokenStream2, fields: &Fields, krate: &syn::Path) -> TokenStream2 {
    let decode = |ty: &syn::Type| {
        quote::quote_spanned! {ty.span()=>
            <#ty as #krate::StateHash>::decode_state(input)?
        }
    };
    match fields {
        Fields::Named(named) => {
            let names = named.named.iter().map(|f| f.ident.as_ref());
            let values = named.named.iter().map(|f| decode(&f.ty));
            quote! { #path { #(#names: #values),* } }
        }
        Fields::Unnamed(unnamed) => {
            let values = unnamed.unnamed.iter().map(|f| decode(&f.ty));
            quote! { #path ( #(#values),* ) }
        }
        Fields::Unit => quote! { #path },
    }
}

/// The body of `decode_state`: the fields in declaration order (struct
/// expressions evaluate their fields in source order); for an enum the
/// variant index first, checked below the variant count.
fn decode_body(input: &DeriveInput, krate: &syn::Path) -> TokenStream2 {
    let name = &input.ident;
    match &input.data {
        Data::Struct(data) => {
            let value = construct(&quote! { #name }, &data.fields, krate);
            let silence = data.fields.is_empty().then(|| quote! { let _ = input; });
            quote! {
                #silence
                ::core::result::Result::Ok(#value)
            }
        }
        Data::Enum(data) => {
            let what = format!("enum {}", name.unraw());
            let count = u32::try_from(data.variants.len()).unwrap_or(u32::MAX);
            let arms = data.variants.iter().enumerate().map(|(idx, variant)| {
                let idx = u32::try_from(idx).unwrap_or(u32::MAX);
                let vname = &variant.ident;
                let value = construct(&quote! { #name::#vname }, &variant.fields, krate);
                quote! { #idx => ::core::result::Result::Ok(#value), }
            });
            quote! {
                let at = input.position();
                let variant = input.read_variant(#what, #count)?;
                match variant {
                    #(#arms)*
                    _ => ::core::result::Result::Err(input.invalid(
                        at,
                        #what,
                        u128::from(variant),
                        "the declaration index of one of its variants",
                    )),
                }
            }
        }
        Data::Union(_) => quote! {
            ::core::result::Result::Err(input.invalid(input.position(), "union", 0, "no union"))
        },
    }
}

/// The body of `hash_layout`: the type's name, then each field's name and
/// layout (an enum's variants by name, each with its fields).
fn layout_body(input: &DeriveInput, krate: &syn::Path) -> TokenStream2 {
    let fields_layout = |fields: &Fields| {
        let parts = fields.iter().enumerate().map(|(i, f)| {
            let label = f
                .ident
                .as_ref()
                .map_or_else(|| i.to_string(), |id| id.unraw().to_string());
            let label = format!("{label}:");
            let ty = &f.ty;
            quote! {
                hasher.write_bytes(#label.as_bytes());
                <#ty as #krate::StateHash>::hash_layout(hasher);
                hasher.write_bytes(b",");
            }
        });
        quote! { #(#parts)* }
    };
    let head = format!("{}{{", input.ident.unraw());
    let body = match &input.data {
        Data::Struct(data) => fields_layout(&data.fields),
        Data::Enum(data) => {
            let variants = data.variants.iter().map(|v| {
                let label = format!("|{}(", v.ident.unraw());
                let inner = fields_layout(&v.fields);
                quote! {
                    hasher.write_bytes(#label.as_bytes());
                    #inner
                    hasher.write_bytes(b")");
                }
            });
            quote! { #(#variants)* }
        }
        Data::Union(_) => quote! {},
    };
    quote! {
        hasher.write_bytes(#head.as_bytes());
        #body
        hasher.write_bytes(b"}");
    }
}
