//! Recognising the same person across titles, such as the episodes of a series.
//!
//! Each title's characters carry a face descriptor (`character_descriptors`: the mean of the
//! character's faces' descriptors, unit length). [`link`] gives every character of every title a
//! **series identity**: titles are taken in order, each character in rank order joins the nearest
//! identity whose mean descriptor is within [`LINK_THRESHOLD`] and that no other character of the
//! same title has joined (one person appears once per title), else starts a new identity; an
//! identity's descriptor is the mean of those that joined it, weighted by screen time. Identities
//! are then numbered by total screen time, 0 first. A character without a descriptor gets none:
//! the evidence does not allow.
//!
//! The threshold is dlib's rule for its face descriptors, "the same person below a distance of
//! 0.6", restated for unit-length descriptors (dlib's are about 1.4 long): 0.43, the threshold the
//! clustering inside one title uses too.

use serde::Serialize;

use crate::signals::Signals;

/// Two characters are one person when their unit descriptors are closer than this.
pub const LINK_THRESHOLD: f32 = 0.43;

/// One character of a title with its series identity.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct LinkedCharacter {
    /// Its rank in the title (0: the most screen time).
    pub rank: u32,
    /// Seconds on screen in the title.
    pub screen_seconds: f64,
    /// Its identity across the titles linked (0: the most screen time over all of them); `None`
    /// without a descriptor.
    pub series_identity: Option<u32>,
}

struct Identity {
    sum: Vec<f64>,
    weight: f64,
    seconds: f64,
}

impl Identity {
    fn distance(&self, d: &[f32]) -> f32 {
        let norm = self.sum.iter().map(|x| x * x).sum::<f64>().sqrt().max(1e-12);
        self.sum.iter().zip(d).map(|(s, x)| ((s / norm) as f32 - x).powi(2)).sum::<f32>().sqrt()
    }
}

/// The characters of each of `titles` with their series identities (see the module).
pub fn link(titles: &[&Signals]) -> Vec<Vec<LinkedCharacter>> {
    let mut identities: Vec<Identity> = Vec::new();
    let mut raw: Vec<Vec<(u32, f64, Option<usize>)>> = Vec::new();
    for s in titles {
        let mut taken: Vec<usize> = Vec::new();
        let mut chars: Vec<(usize, &crate::signals::Character)> = s.characters.iter().enumerate().collect();
        chars.sort_by_key(|(_, c)| c.rank);
        let mut out = Vec::new();
        for (i, c) in chars {
            let seconds: f64 = c.spans.iter().map(|[a, b]| b - a).sum();
            let descriptor = s
                .character_descriptors
                .as_ref()
                .and_then(|d| d.get(i))
                .filter(|d| !d.is_empty() && identities.first().is_none_or(|f| f.sum.len() == d.len()));
            let id = descriptor.map(|d| {
                let nearest = identities
                    .iter()
                    .enumerate()
                    .filter(|(k, _)| !taken.contains(k))
                    .map(|(k, id)| (k, id.distance(d)))
                    .filter(|&(_, dist)| dist < LINK_THRESHOLD)
                    .min_by(|a, b| a.1.total_cmp(&b.1))
                    .map(|(k, _)| k);
                let k = nearest.unwrap_or_else(|| {
                    identities.push(Identity { sum: vec![0.0; d.len()], weight: 0.0, seconds: 0.0 });
                    identities.len() - 1
                });
                let w = seconds.max(1e-3);
                let id = &mut identities[k];
                id.sum.iter_mut().zip(d).for_each(|(s, x)| *s += w * f64::from(*x));
                id.weight += w;
                id.seconds += seconds;
                taken.push(k);
                k
            });
            out.push((c.rank, seconds, id));
        }
        raw.push(out);
    }
    // Number identities by total screen time.
    let mut order: Vec<usize> = (0..identities.len()).collect();
    order.sort_by(|&a, &b| identities[b].seconds.total_cmp(&identities[a].seconds).then(a.cmp(&b)));
    let mut number = vec![0u32; identities.len()];
    for (n, &k) in order.iter().enumerate() {
        number[k] = n as u32;
    }
    raw.into_iter()
        .map(|title| {
            title
                .into_iter()
                .map(|(rank, seconds, id)| LinkedCharacter {
                    rank,
                    screen_seconds: crate::report::time(seconds),
                    series_identity: id.map(|k| number[k]),
                })
                .collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::signals::Character;

    fn unit(axis: usize, tilt: f32) -> Vec<f32> {
        let mut v = vec![0.0f32; 8];
        v[axis] = tilt.cos();
        v[(axis + 1) % 8] = tilt.sin();
        v
    }

    fn title(people: &[(usize, f32, f64)]) -> Signals {
        let mut s = crate::synth::demo_signals("t", 600.0, 1.0, 1);
        s.characters = people
            .iter()
            .enumerate()
            .map(|(r, &(_, _, secs))| Character { rank: r as u32, spans: vec![[0.0, secs]] })
            .collect();
        s.character_descriptors = Some(people.iter().map(|&(axis, tilt, _)| unit(axis, tilt)).collect());
        s
    }

    #[test]
    fn the_same_people_keep_one_identity_across_episodes() {
        // Episode 1: A (axis 0) and B (axis 2); episode 2: B first, then A, slightly different;
        // episode 3: A and a newcomer C (axis 4).
        let e1 = title(&[(0, 0.0, 300.0), (2, 0.0, 100.0)]);
        let e2 = title(&[(2, 0.1, 250.0), (0, 0.12, 200.0)]);
        let e3 = title(&[(0, -0.1, 280.0), (4, 0.0, 50.0)]);
        let linked = link(&[&e1, &e2, &e3]);
        let ids: Vec<Vec<Option<u32>>> = linked.iter().map(|t| t.iter().map(|c| c.series_identity).collect()).collect();
        // A: 780 s in all, B: 350 s, C: 50 s.
        assert_eq!(ids, [vec![Some(0), Some(1)], vec![Some(1), Some(0)], vec![Some(0), Some(2)]]);
        assert_eq!(linked[1][0].screen_seconds, 250.0);
    }

    #[test]
    fn twins_in_one_title_stay_two_and_missing_descriptors_give_none() {
        let twins = title(&[(0, 0.0, 100.0), (0, 0.01, 90.0)]);
        let linked = link(&[&twins]);
        assert_eq!(linked[0].iter().map(|c| c.series_identity).collect::<Vec<_>>(), [Some(0), Some(1)]);
        let mut bare = title(&[(0, 0.0, 100.0)]);
        bare.character_descriptors = None;
        assert_eq!(link(&[&bare])[0][0].series_identity, None);
    }
}
