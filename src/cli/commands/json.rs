//! How the commands write numbers in JSON: a time or duration that is not finite (a grace of
//! `inf`, the watermark at the end of input) has no JSON number, and is written `null`; so are
//! the global window's bounds, which lie beyond every time an event can have.

/// `x` when it is finite, else `None` (written `null`).
pub(super) fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}

/// The largest time an event can carry, ms (2^53: where whole milliseconds stop being exact).
const TIME_MAX: f64 = 9_007_199_254_740_992.0;

/// A window bound, `None` (written `null`) for the global window's, which are unbounded.
pub(super) fn bound(ms: f64) -> Option<f64> {
    (ms.abs() <= TIME_MAX).then_some(ms)
}

/// Items written one by one, as they come, into a temporary file, to be written back as a JSON
/// array: a long run's panes and drops without holding them in memory.
pub(super) struct SpooledArray {
    file: std::io::BufWriter<std::fs::File>,
}

impl SpooledArray {
    /// An empty array in a new temporary file (removed when it is dropped).
    pub(super) fn new() -> anyhow::Result<Self> {
        let file = tempfile::tempfile()
            .map_err(|e| anyhow::anyhow!("cannot create a temporary file for the output ({e})"))?;
        Ok(SpooledArray {
            file: std::io::BufWriter::new(file),
        })
    }

    /// Appends an item.
    pub(super) fn push<T: serde::Serialize>(&mut self, item: &T) -> anyhow::Result<()> {
        use std::io::Write;
        serde_json::to_writer(&mut self.file, item)?;
        self.file.write_all(b"\n")?;
        Ok(())
    }

    /// The items written, to be serialized as an array.
    pub(super) fn items(self) -> anyhow::Result<SpooledItems> {
        use std::io::Seek;
        let mut file = self
            .file
            .into_inner()
            .map_err(|e| anyhow::anyhow!("cannot write the output's temporary file ({e})"))?;
        file.rewind()?;
        Ok(SpooledItems(std::cell::RefCell::new(Some(
            std::io::BufReader::new(file),
        ))))
    }
}

/// A [`SpooledArray`]'s items, serialized (once) as a JSON array, read back one at a time.
pub(super) struct SpooledItems(std::cell::RefCell<Option<std::io::BufReader<std::fs::File>>>);

impl serde::Serialize for SpooledItems {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{Error, SerializeSeq};
        let reader = self
            .0
            .borrow_mut()
            .take()
            .ok_or_else(|| S::Error::custom("the spooled items were written already"))?;
        let mut seq = s.serialize_seq(None)?;
        let items = serde_json::Deserializer::from_reader(reader)
            .into_iter::<Box<serde_json::value::RawValue>>();
        for item in items {
            let item =
                item.map_err(|e| S::Error::custom(format!("reading the output back: {e}")))?;
            seq.serialize_element(&item)?;
        }
        seq.end()
    }
}

/// A JSON array held in memory or spooled to a temporary file.
pub(super) enum JsonArray<T> {
    /// Held.
    Held(Vec<T>),
    /// Spooled.
    Spooled(SpooledItems),
}

impl<T: serde::Serialize> serde::Serialize for JsonArray<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            JsonArray::Held(v) => v.serialize(s),
            JsonArray::Spooled(items) => items.serialize(s),
        }
    }
}
