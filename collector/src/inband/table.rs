//! A bounded key -> entry table whose entries sit in a dense vector, so a caller that
//! has found a key once can come back to its entry by index without hashing again
//! (the per-flow hop slot cache of [`super::state`]). Indices stay valid until the
//! next [`Table::retain`] that removes something; the table's `generation` says when.

use std::collections::HashMap;
use std::hash::Hash;

type Map<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

pub(super) struct Table<K, E> {
    index: Map<K, u32>,
    keys: Vec<K>,
    entries: Vec<E>,
    /// Bumped whenever indices may have moved.
    generation: u64,
}

impl<K: Copy + Eq + Hash, E> Table<K, E> {
    pub(super) fn with_capacity(n: usize) -> Self {
        Table { index: Map::with_capacity_and_hasher(n, Default::default()), keys: Vec::with_capacity(n), entries: Vec::with_capacity(n), generation: 0 }
    }

    pub(super) fn len(&self) -> usize {
        self.entries.len()
    }

    pub(super) fn generation(&self) -> u64 {
        self.generation
    }

    #[inline]
    pub(super) fn find(&self, k: &K) -> Option<u32> {
        self.index.get(k).copied()
    }

    /// Adds a key that is not in the table; returns its index.
    pub(super) fn insert(&mut self, k: K, e: E) -> u32 {
        let i = self.entries.len() as u32;
        self.index.insert(k, i);
        self.keys.push(k);
        self.entries.push(e);
        i
    }

    /// Every entry, by index.
    #[inline(always)]
    pub(super) fn entries_mut(&mut self) -> &mut [E] {
        &mut self.entries
    }

    pub(super) fn get(&self, i: u32) -> &E {
        &self.entries[i as usize]
    }

    #[inline]
    pub(super) fn at(&mut self, i: u32) -> &mut E {
        &mut self.entries[i as usize]
    }

    /// Keeps the entries `keep` accepts; returns how many went.
    pub(super) fn retain(&mut self, keep: impl Fn(&E) -> bool) -> usize {
        let before = self.entries.len();
        let mut w = 0;
        for r in 0..before {
            if keep(&self.entries[r]) {
                self.entries.swap(w, r);
                self.keys.swap(w, r);
                w += 1;
            }
        }
        self.entries.truncate(w);
        self.keys.truncate(w);
        let removed = before - w;
        if removed > 0 {
            self.index.clear();
            for (i, k) in self.keys.iter().enumerate() {
                self.index.insert(*k, i as u32);
            }
            self.generation += 1;
        }
        removed
    }

    pub(super) fn iter(&self) -> impl Iterator<Item = (&K, &E)> {
        self.keys.iter().zip(self.entries.iter())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indices_follow_retain_and_generation_says_so() {
        let mut t: Table<u32, u32> = Table::with_capacity(4);
        for k in 0..5 {
            assert_eq!(t.insert(k, k * 10), k);
        }
        assert_eq!(t.generation(), 0);
        assert_eq!(t.retain(|e| *e != 20 && *e != 0), 2);
        assert_eq!(t.generation(), 1);
        assert_eq!(t.len(), 3);
        for k in [1u32, 3, 4] {
            let i = t.find(&k).unwrap();
            assert_eq!(*t.at(i), k * 10);
        }
        assert_eq!(t.find(&2), None);
        assert_eq!(t.retain(|_| true), 0);
        assert_eq!(t.generation(), 1, "nothing removed, indices unchanged");
        let mut seen: Vec<_> = t.iter().map(|(k, e)| (*k, *e)).collect();
        seen.sort();
        assert_eq!(seen, vec![(1, 10), (3, 30), (4, 40)]);
    }
}
