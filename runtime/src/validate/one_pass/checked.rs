//! The checking layers over serde: a deserializer, visitor and accessors
//! that hold each value to its place of the plan while serde reads it.

use core::cell::Cell;
use core::fmt;
use core::marker::PhantomData;

use serde::de::{
    self, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess, VariantAccess, Visitor,
};

use super::plan::{Kind, Object, Plan, Slot};
use crate::project::HINT_FIELD;

/// The error that sends a call down the full path.
#[derive(Debug)]
struct NotSure;

impl fmt::Display for NotSure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the fast path cannot vouch for these arguments")
    }
}

impl std::error::Error for NotSure {}

impl de::Error for NotSure {
    fn custom<T: fmt::Display>(_: T) -> NotSure {
        NotSure
    }
}

pub(super) fn read_with<'de, T: de::Deserialize<'de>, D: Deserializer<'de>>(
    de: D,
    plan: &Plan,
) -> Option<T> {
    let run = Run {
        plan,
        failed: Cell::new(false),
        open: Cell::new(0),
        fields: Cell::new(&[]),
    };
    let place = Place {
        run: &run,
        slot: &plan.slots[0],
    };
    let value = T::deserialize(Checked { de, place }).ok()?;
    (!run.failed.get() && run.open.get() == 0).then_some(value)
}

/// One pass: the plan and the verdict.
struct Run<'a> {
    plan: &'a Plan,
    failed: Cell<bool>,
    /// Objects whose required members are not yet known to be there: each
    /// is counted when serde opens it and let go at its end when they are,
    /// so that the value serde reads is handed on with no check after it.
    open: Cell<u32>,
    /// The field list of the struct serde is about to read (what it asked
    /// `deserialize_struct` with), taken by the map it opens.
    fields: Cell<&'static [&'static str]>,
}

/// Where a value stands.
#[derive(Clone, Copy)]
struct Place<'a> {
    run: &'a Run<'a>,
    slot: &'a Slot,
}

impl<'a> Place<'a> {
    #[inline]
    fn at(self, slot: u32) -> Place<'a> {
        Place {
            run: self.run,
            slot: &self.run.plan.slots[slot as usize],
        }
    }

    /// Records a doubt and returns the error that stops serde.
    fn fail<E: de::Error>(self) -> E {
        self.run.failed.set(true);
        E::custom(NotSure)
    }

    /// An object opened whose required members are still to be seen.
    #[inline]
    fn open(self) {
        self.run.open.set(self.run.open.get() + 1);
    }

    /// Its required members were all there.
    #[inline]
    fn close(self) {
        self.run.open.set(self.run.open.get() - 1);
    }

    #[inline]
    fn integer(self, value: i128) -> bool {
        self.slot.integer(value)
    }

    #[inline]
    fn float(self, value: f64) -> bool {
        self.slot.float(value)
    }

    #[inline]
    fn string(self, text: &str) -> bool {
        self.slot.string(self.run.plan, text)
    }

    #[inline]
    fn null(self) -> bool {
        self.slot.null
    }
}

/// A deserializer that checks what it hands to serde.
struct Checked<'a, D> {
    de: D,
    place: Place<'a>,
}

macro_rules! forward {
    ($($method:ident)*) => {$(
        #[inline]
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
            let place = self.place;
            self.de.$method(Check { visitor, place })
        }
    )*};
}

// The errors stay the wrapped deserializer's own, so values pass through
// every layer untouched; a failed check is recorded in the run as well.
impl<'de, D: Deserializer<'de>> Deserializer<'de> for Checked<'_, D> {
    type Error = D::Error;

    forward! {
        deserialize_any deserialize_bool deserialize_i8 deserialize_i16 deserialize_i32
        deserialize_i64 deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64
        deserialize_f64 deserialize_char deserialize_str deserialize_string
        deserialize_bytes deserialize_byte_buf deserialize_option deserialize_unit
        deserialize_seq deserialize_map deserialize_identifier deserialize_ignored_any
        deserialize_i128 deserialize_u128
    }

    /// An `f32` is checked as the number sent, then rounded, as the
    /// parsed-value path reads it: asked for an `f32`, a JSON reader may
    /// round first (serde_json does with `float_roundtrip`), and a number
    /// just past a bound would be judged by the bound it rounds to.
    #[inline]
    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        let place = self.place;
        self.de.deserialize_f64(Check { visitor, place })
    }

    #[inline]
    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        let place = self.place;
        self.de
            .deserialize_unit_struct(name, Check { visitor, place })
    }

    #[inline]
    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        let place = self.place;
        self.de
            .deserialize_newtype_struct(name, Check { visitor, place })
    }

    #[inline]
    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        _len: usize,
        _visitor: V,
    ) -> Result<V::Value, D::Error> {
        Err(self.place.fail())
    }

    #[inline]
    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        _visitor: V,
    ) -> Result<V::Value, D::Error> {
        Err(self.place.fail())
    }

    #[inline]
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        let place = self.place;
        place.run.fields.set(fields);
        self.de
            .deserialize_struct(name, fields, Check { visitor, place })
    }

    #[inline]
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        // String enums are checked here; enums with data are left to the
        // full path.
        let place = self.place;
        if !matches!(place.slot.kind, Kind::Enum(_)) {
            return Err(place.fail());
        }
        self.de
            .deserialize_enum(name, variants, Check { visitor, place })
    }
}

/// A visitor that checks each value against its place, then hands it on.
struct Check<'a, V> {
    visitor: V,
    place: Place<'a>,
}

impl<'de, V: Visitor<'de>> Visitor<'de> for Check<'_, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.visitor.expecting(f)
    }

    #[inline]
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<V::Value, E> {
        if !matches!(self.place.slot.kind, Kind::Bool | Kind::Any) {
            return Err(self.place.fail());
        }
        self.visitor.visit_bool(v)
    }

    #[inline]
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<V::Value, E> {
        if !self.place.integer(v.into()) {
            return Err(self.place.fail());
        }
        self.visitor.visit_i64(v)
    }

    #[inline]
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<V::Value, E> {
        if !self.place.integer(v.into()) {
            return Err(self.place.fail());
        }
        self.visitor.visit_u64(v)
    }

    #[inline]
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<V::Value, E> {
        if !self.place.float(v) {
            return Err(self.place.fail());
        }
        self.visitor.visit_f64(v)
    }

    #[inline]
    fn visit_str<E: de::Error>(self, v: &str) -> Result<V::Value, E> {
        if !self.place.string(v) {
            return Err(self.place.fail());
        }
        self.visitor.visit_str(v)
    }

    #[inline]
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<V::Value, E> {
        if !self.place.string(v) {
            return Err(self.place.fail());
        }
        self.visitor.visit_borrowed_str(v)
    }

    #[inline]
    fn visit_string<E: de::Error>(self, v: String) -> Result<V::Value, E> {
        if !self.place.string(&v) {
            return Err(self.place.fail());
        }
        self.visitor.visit_string(v)
    }

    #[inline]
    fn visit_none<E: de::Error>(self) -> Result<V::Value, E> {
        if !self.place.null() {
            return Err(self.place.fail());
        }
        self.visitor.visit_none()
    }

    #[inline]
    fn visit_unit<E: de::Error>(self) -> Result<V::Value, E> {
        if !self.place.null() {
            return Err(self.place.fail());
        }
        self.visitor.visit_unit()
    }

    #[inline]
    fn visit_some<D2: Deserializer<'de>>(self, deserializer: D2) -> Result<V::Value, D2::Error> {
        let place = self.place;
        self.visitor.visit_some(Checked {
            de: deserializer,
            place,
        })
    }

    #[inline]
    fn visit_newtype_struct<D2: Deserializer<'de>>(
        self,
        deserializer: D2,
    ) -> Result<V::Value, D2::Error> {
        let place = self.place;
        self.visitor.visit_newtype_struct(Checked {
            de: deserializer,
            place,
        })
    }

    #[inline]
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        let place = self.place;
        let (items, min, max) = match place.slot.kind {
            Kind::Array { items, min, max } => (items, min, max),
            Kind::Any => return self.visitor.visit_seq(seq),
            _ => return Err(place.fail()),
        };
        let count = Cell::new(0u64);
        let value = self.visitor.visit_seq(Items {
            seq,
            place: place.at(items),
            count: &count,
        })?;
        let n = count.get();
        if n < min || n > max {
            return Err(place.fail());
        }
        Ok(value)
    }

    #[inline]
    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<V::Value, A::Error> {
        self.visitor.visit_enum(Variants {
            data,
            place: self.place,
        })
    }

    #[inline]
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        let place = self.place;
        // The list of the struct this map is, if it is one: taken by every
        // map, so that none is read as another's.
        let fields = place.run.fields.replace(&[]);
        match place.slot.kind {
            Kind::Object(index) => {
                let plan = place.run.plan;
                let object = &plan.objects[index as usize];
                place.open();
                self.visitor.visit_map(Properties {
                    map,
                    object,
                    by_index: object.indexed_by(fields),
                    // The discovery hint is a property of the arguments
                    // object only.
                    root: core::ptr::eq(place.slot, &plan.slots[0]),
                    guess: 0,
                    place,
                    current: None,
                    seen: 0,
                    ended: false,
                })
            }
            Kind::Map { values } => self.visitor.visit_map(Entries {
                map,
                place: place.at(values),
            }),
            Kind::Any => self.visitor.visit_map(map),
            _ => Err(place.fail()),
        }
    }
}

/// Array items, each checked against the item slot.
struct Items<'a, A> {
    seq: A,
    place: Place<'a>,
    count: &'a Cell<u64>,
}

impl<'de, A: SeqAccess<'de>> SeqAccess<'de> for Items<'_, A> {
    type Error = A::Error;

    #[inline]
    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, A::Error> {
        let next = self.seq.next_element_seed(Seeded {
            seed,
            place: self.place,
        })?;
        if next.is_some() {
            self.count.set(self.count.get() + 1);
        }
        Ok(next)
    }
}

/// The properties of an object: exposed names read, source names handed on.
struct Properties<'a, A> {
    map: A,
    object: &'a Object,
    root: bool,
    /// Whether serde's field visitor is told a member by its index.
    by_index: bool,
    /// Where the next property probably is: arguments usually come in
    /// declaration order.
    guess: usize,
    place: Place<'a>,
    current: Option<&'a Slot>,
    /// Bit `i` is set once `members[i]` has been read.
    seen: u64,
    /// The object's end was read (a visitor asking again is told so
    /// again, and the object is not let go twice).
    ended: bool,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Properties<'_, A> {
    type Error = A::Error;

    #[inline]
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        loop {
            let object = self.object;
            // Read in place: a name with escapes is not, and goes down the
            // full path.
            let Some(name) = self.map.next_key::<&'de str>()? else {
                let required = object.required;
                if self.seen & required != required {
                    return Err(self.place.fail());
                }
                if !self.ended {
                    self.ended = true;
                    self.place.close();
                }
                return Ok(None);
            };
            let members = &object.members;
            // Arguments usually come in declaration order.
            let index = if members.get(self.guess).is_some_and(|m| m.exposed.is(name)) {
                self.guess
            } else if let Some(index) = members.iter().position(|m| m.exposed.is(name)) {
                index
            } else if self.root && name == HINT_FIELD {
                // Removed by the full path whatever it holds; a plain
                // value cannot nest past the limits.
                self.map.next_value_seed(PlainValue)?;
                continue;
            } else {
                // An unknown property: the full path reports it.
                return Err(self.place.fail());
            };
            let bit = 1u64 << index;
            if self.seen & bit != 0 {
                return Err(self.place.fail());
            }
            self.seen |= bit;
            let member = &object.members[index];
            self.current = Some(&member.place);
            self.guess = index + 1;
            if !self.by_index {
                return seed
                    .deserialize(de::value::StrDeserializer::<A::Error>::new(&member.source))
                    .map(Some);
            }
            let key = MemberKey::<A::Error> {
                index: index as u64,
                source: &member.source,
                error: PhantomData,
            };
            return match seed.deserialize(key) {
                Ok(key) => Ok(Some(key)),
                Err(error) => {
                    // Left to the full path; named from now on.
                    object.by_name();
                    Err(error)
                }
            };
        }
    }

    #[inline]
    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, A::Error> {
        let Some(slot) = self.current.take() else {
            return Err(self.place.fail());
        };
        self.map.next_value_seed(Seeded {
            seed,
            place: Place {
                run: self.place.run,
                slot,
            },
        })
    }
}

/// A member's name as serde's field visitor takes it: its index, for the
/// identifier serde's derive reads; its source name, for any other reader
/// of the key (a `String`, a reader of one's own).
struct MemberKey<'a, E> {
    index: u64,
    source: &'a str,
    error: PhantomData<E>,
}

impl<'de, E: de::Error> Deserializer<'de> for MemberKey<'_, E> {
    type Error = E;

    #[inline]
    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, E> {
        visitor.visit_u64(self.index)
    }

    #[inline]
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, E> {
        visitor.visit_str(self.source)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum ignored_any
    }
}

/// The entries of a map, each value checked against the value slot.
struct Entries<'a, A> {
    map: A,
    place: Place<'a>,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Entries<'_, A> {
    type Error = A::Error;

    #[inline]
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        self.map.next_key_seed(seed)
    }

    #[inline]
    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, A::Error> {
        self.map.next_value_seed(Seeded {
            seed,
            place: self.place,
        })
    }
}

/// A seed whose deserializer checks what it reads.
struct Seeded<'a, S> {
    seed: S,
    place: Place<'a>,
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for Seeded<'_, S> {
    type Value = S::Value;

    #[inline]
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<S::Value, D::Error> {
        let place = self.place;
        self.seed.deserialize(Checked {
            de: deserializer,
            place,
        })
    }
}

/// The variant of a string enum: its name is checked as a string in the
/// enum's slot; only unit variants pass.
struct Variants<'a, A> {
    data: A,
    place: Place<'a>,
}

impl<'de, 'a, A: EnumAccess<'de>> EnumAccess<'de> for Variants<'a, A> {
    type Error = A::Error;
    type Variant = UnitOnly<'a, A::Variant>;

    #[inline]
    fn variant_seed<S: DeserializeSeed<'de>>(
        self,
        seed: S,
    ) -> Result<(S::Value, Self::Variant), A::Error> {
        let place = self.place;
        let (value, variant) = self.data.variant_seed(Seeded { seed, place })?;
        Ok((value, UnitOnly { variant, place }))
    }
}

struct UnitOnly<'a, A> {
    variant: A,
    place: Place<'a>,
}

impl<'de, A: VariantAccess<'de>> VariantAccess<'de> for UnitOnly<'_, A> {
    type Error = A::Error;

    fn unit_variant(self) -> Result<(), A::Error> {
        self.variant.unit_variant()
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, _seed: T) -> Result<T::Value, A::Error> {
        Err(self.place.fail())
    }

    fn tuple_variant<V: Visitor<'de>>(
        self,
        _len: usize,
        _visitor: V,
    ) -> Result<V::Value, A::Error> {
        Err(self.place.fail())
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        _visitor: V,
    ) -> Result<V::Value, A::Error> {
        Err(self.place.fail())
    }
}

/// A value that is not an array or an object, read and dropped.
struct PlainValue;

impl<'de> DeserializeSeed<'de> for PlainValue {
    type Value = ();

    #[inline]
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for PlainValue {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string, number, boolean or null")
    }

    #[inline]
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        Ok(())
    }

    #[inline]
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        Ok(())
    }

    #[inline]
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        Ok(())
    }

    #[inline]
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        Ok(())
    }

    #[inline]
    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        Ok(())
    }

    #[inline]
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
}
