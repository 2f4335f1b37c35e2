//! Maintenance of a [`SegmentedIndex`]: the delta flushed as a new segment, segments merged
//! without their dead vectors (which ones: `merge_policy.rs`), on the caller's thread or a
//! background one. Files are written with no lock that a reader or writer takes; the result is
//! published as a new view under a short lock, then listed in the manifest.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use super::segment::{Bits, Segment, SegmentIndex, mark_dead_bits, open_graph};
use super::types::{Inner, ItemVectors, SegmentedIndex, Stamp, lock};
use crate::error::{Error, Result};
use crate::vectors::exact::ExactIndex;
use crate::vectors::hnsw::HnswIndex;
use crate::vectors::set::{ItemKind, VectorSet};

impl SegmentedIndex {
    /// Whether a flush or a merge is due.
    pub fn needs_maintenance(&self) -> bool {
        let inner = lock(&self.inner);
        inner.delta_vectors() >= self.config.flush_vectors || !self.merge_victims(&inner).is_empty()
    }

    /// Runs [`SegmentedIndex::maintain`] on a thread of its own unless one is already running;
    /// `on_error` hears of a failed flush or merge (which leaves the index as it was).
    pub fn maintain_in_background(self: &Arc<Self>, on_error: impl Fn(&Error) + Send + 'static) {
        if self.scheduled.swap(true, Ordering::AcqRel) {
            return;
        }
        let index = self.clone();
        let spawned = std::thread::Builder::new().name("kino-segments".into()).spawn(move || {
            loop {
                let result = index.maintain();
                index.scheduled.store(false, Ordering::Release);
                if let Err(e) = result {
                    // The index is as it was; the next update schedules another try.
                    on_error(&e);
                    break;
                }
                // An update that came while the flag was still set left the work to this
                // thread: look again.
                if !index.needs_maintenance() || index.scheduled.swap(true, Ordering::AcqRel) {
                    break;
                }
            }
        });
        if spawned.is_err() {
            self.scheduled.store(false, Ordering::Release);
        }
    }

    /// Flushes the delta once it is large enough and merges segments while a merge is due.
    pub fn maintain(&self) -> Result<()> {
        let _one = lock(&self.maintenance);
        if lock(&self.inner).delta_vectors() >= self.config.flush_vectors {
            self.flush_locked()?;
        }
        loop {
            let victims = self.merge_victims(&lock(&self.inner));
            if victims.is_empty() {
                return Ok(());
            }
            self.merge_locked(&victims)?;
        }
    }

    /// Writes the whole delta as a segment, whatever its size, and merges every segment into one
    /// (dropping dead vectors): the most compact form, e.g. before a benchmark or a backup.
    pub fn compact(&self) -> Result<()> {
        let _one = lock(&self.maintenance);
        self.flush_locked()?;
        let all: Vec<String> = lock(&self.inner).segments.iter().map(|s| s.file.clone()).collect();
        let dirty = lock(&self.inner).dead.iter().any(|d| d.count > 0);
        if all.len() > 1 || dirty {
            self.merge_locked(&all)?;
        }
        Ok(())
    }

    fn next_file(inner: &mut Inner) -> String {
        inner.next_file += 1;
        format!("seg-{:08}.kvx", inner.next_file)
    }

    /// Writes the delta as a new segment (the maintenance lock is held).
    fn flush_locked(&self) -> Result<()> {
        let (items, file) = {
            let mut inner = lock(&self.inner);
            if inner.delta.is_empty() {
                return Ok(());
            }
            let items: Vec<Arc<ItemVectors>> = inner.delta.values().cloned().collect();
            (items, Self::next_file(&mut inner))
        };
        let mut set = self.config.empty_set()?;
        let mut stamps = HashMap::new();
        for item in &items {
            append(&mut set, &item.set)?;
            stamps.insert(item.id.clone(), item.stamp);
        }
        let segment = self.write_segment(&file, &set, stamps)?;
        let manifest = {
            let mut inner = lock(&self.inner);
            let mut dead = Bits::new(set.len());
            for item in &items {
                let unchanged = inner.delta.get(&item.id).is_some_and(|d| Arc::ptr_eq(d, item));
                if unchanged {
                    inner.delta.remove(&item.id);
                } else {
                    // Changed or removed while the file was written: this copy is already old.
                    mark_dead_bits(&mut dead, &segment, &item.id);
                }
            }
            inner.segments.push(segment);
            inner.dead.push(Arc::new(dead));
            self.publish(&inner);
            inner.manifest()
        };
        self.write_manifest(&manifest)
    }

    /// Merges the segments named `files` into one (the maintenance lock is held).
    fn merge_locked(&self, files: &[String]) -> Result<()> {
        let (victims, file) = {
            let mut inner = lock(&self.inner);
            let victims: Vec<(Arc<Segment>, Arc<Bits>)> = inner
                .segments
                .iter()
                .zip(&inner.dead)
                .filter(|(s, _)| files.contains(&s.file))
                .map(|(s, d)| (s.clone(), d.clone()))
                .collect();
            (victims, Self::next_file(&mut inner))
        };
        let mut set = self.config.empty_set()?;
        let mut stamps = HashMap::new();
        for (segment, dead) in &victims {
            let index = segment.index.get();
            for node in 0..index.len() as u32 {
                if dead.get(node) {
                    continue;
                }
                let Some(v) = index.vector(node) else { continue };
                let id = index.id(node)?;
                let span = index.span(node);
                if self.config.scenes {
                    set.push_scene(id, index.kind(node), span[0], span[1], v)?;
                } else {
                    set.push_item(id, index.kind(node), v)?;
                }
                if let Some(stamp) = segment.stamps.get(id) {
                    stamps.insert(id.to_string(), *stamp);
                }
            }
        }
        let merged = if set.is_empty() { None } else { Some(self.write_segment(&file, &set, stamps)?) };
        let manifest = {
            let mut inner = lock(&self.inner);
            let mut kept_segments = Vec::new();
            let mut kept_dead = Vec::new();
            let mut at = None;
            let (segments, dead) = (std::mem::take(&mut inner.segments), std::mem::take(&mut inner.dead));
            for (s, d) in segments.into_iter().zip(dead) {
                if victims.iter().any(|(v, _)| Arc::ptr_eq(v, &s)) {
                    at.get_or_insert(kept_segments.len());
                } else {
                    kept_segments.push(s);
                    kept_dead.push(d);
                }
            }
            if let Some(merged) = merged {
                // Items changed or removed while the merge ran: their copies here are old.
                let mut dead = Bits::new(merged.index.get().len());
                for (id, stamp) in &merged.stamps {
                    if inner.live.get(id) != Some(stamp) || inner.delta.contains_key(id) {
                        mark_dead_bits(&mut dead, &merged, id);
                    }
                }
                let at = at.unwrap_or(kept_segments.len());
                kept_segments.insert(at, merged);
                kept_dead.insert(at, Arc::new(dead));
            }
            inner.segments = kept_segments;
            inner.dead = kept_dead;
            self.publish(&inner);
            inner.manifest()
        };
        self.write_manifest(&manifest)?;
        for (segment, _) in &victims {
            // Readers that still hold the old view keep their mapping; the file goes when they do.
            let _ = std::fs::remove_file(self.dir.join(&segment.file));
        }
        Ok(())
    }

    fn write_segment(&self, file: &str, set: &VectorSet, stamps: HashMap<String, Stamp>) -> Result<Arc<Segment>> {
        let path = self.dir.join(file);
        let index = if set.len() >= self.config.graph_from {
            HnswIndex::build_to_file(set, &self.config.params, &path, |_| {})?;
            SegmentIndex::Hnsw(open_graph(&path, &self.config)?)
        } else {
            ExactIndex::write(set, &path)?;
            SegmentIndex::Exact(ExactIndex::open(&path)?)
        };
        Ok(Arc::new(Segment::new(file.to_string(), index, stamps)?))
    }
}

/// Appends every vector of `from` (already normalised) to `to`.
fn append(to: &mut VectorSet, from: &VectorSet) -> Result<()> {
    let dim = from.dim;
    for (i, v) in from.data.chunks_exact(dim).enumerate() {
        let kind = ItemKind::from_code(from.kinds[i]);
        if to.unique_ids {
            to.push_item(&from.ids[i], kind, v)?;
        } else {
            to.push_scene(&from.ids[i], kind, from.spans[i][0], from.spans[i][1], v)?;
        }
    }
    Ok(())
}
