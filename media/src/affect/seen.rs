//! What is seen as evidence of emotions: a table of the ImageNet-1k classes (standard order)
//! whose sight carries an emotion (dangerous animals, weapons, fire, accidents and grief,
//! celebrations, babies, speed), each with the emotions it is evidence for. A rule written by
//! hand, not a measurement: placing every label through the sentence model was tried and gave
//! labels emotions they do not carry (a breastplate tender, chain mail joyful, a menu amusing, a
//! sulphur butterfly sad; `docs/media.md`), so labels outside the table say nothing.

use super::{AMUSEMENT, ANGER, EMOTION_COUNT, EXCITEMENT, FEAR, JOY, SADNESS, SURPRISE, TENDERNESS};

/// Class index, and the emotions its sight is evidence for with their weights.
pub const SEEN_AFFECT: &[(u16, &[(usize, f32)])] = &[
    // Dangerous animals: tiger shark, great white shark, Gila monster, Komodo dragon, Indian
    // cobra, scorpion, tarantula, wolf spider, grey wolf.
    (3, &[(FEAR, 0.8)]),
    (2, &[(FEAR, 0.8)]),
    (45, &[(FEAR, 0.6)]),
    (48, &[(FEAR, 0.6)]),
    (63, &[(FEAR, 0.8)]),
    (71, &[(FEAR, 0.8)]),
    (76, &[(FEAR, 0.8)]),
    (77, &[(FEAR, 0.8)]),
    (269, &[(FEAR, 0.6)]),
    // Masks, prisons, volcanoes.
    (643, &[(FEAR, 0.6)]),
    (743, &[(FEAR, 0.5)]),
    (980, &[(FEAR, 0.6), (SURPRISE, 0.3)]),
    // Weapons: assault rifle, revolver, rifle, cannon, guillotine, missile, tank, military
    // aircraft, holster; a punching bag.
    (413, &[(FEAR, 0.7), (ANGER, 0.5)]),
    (763, &[(FEAR, 0.7), (ANGER, 0.5)]),
    (764, &[(FEAR, 0.6), (ANGER, 0.4)]),
    (471, &[(FEAR, 0.5), (ANGER, 0.3)]),
    (583, &[(FEAR, 0.8)]),
    (657, &[(FEAR, 0.6), (EXCITEMENT, 0.3)]),
    (847, &[(FEAR, 0.5), (EXCITEMENT, 0.5)]),
    (895, &[(EXCITEMENT, 0.5), (FEAR, 0.3)]),
    (597, &[(ANGER, 0.5), (FEAR, 0.3)]),
    (747, &[(ANGER, 0.6)]),
    // Emergencies and grief: fire truck, police van, ambulance, stretcher, shipwreck, memorial
    // plaque.
    (555, &[(FEAR, 0.4), (EXCITEMENT, 0.4)]),
    (734, &[(FEAR, 0.4), (EXCITEMENT, 0.4)]),
    (407, &[(FEAR, 0.4), (SADNESS, 0.4)]),
    (830, &[(SADNESS, 0.5), (FEAR, 0.3)]),
    (913, &[(SADNESS, 0.6)]),
    (458, &[(SADNESS, 0.7)]),
    // Celebrations and play: balloon, bridegroom, candle, toy store, maypole, carved pumpkin,
    // swing, comic book.
    (417, &[(JOY, 0.6)]),
    (982, &[(JOY, 0.7), (TENDERNESS, 0.4)]),
    (470, &[(JOY, 0.3), (TENDERNESS, 0.3)]),
    (865, &[(JOY, 0.6)]),
    (645, &[(JOY, 0.6)]),
    (607, &[(JOY, 0.4), (AMUSEMENT, 0.3)]),
    (843, &[(JOY, 0.5)]),
    (917, &[(AMUSEMENT, 0.6)]),
    // Babies: cradle, baby pacifier, teddy bear.
    (516, &[(TENDERNESS, 0.7)]),
    (680, &[(TENDERNESS, 0.6)]),
    (850, &[(TENDERNESS, 0.6), (JOY, 0.4)]),
    // Speed: race car, sports car, go-kart, high-speed train, snowmobile, parachute.
    (751, &[(EXCITEMENT, 0.8)]),
    (817, &[(EXCITEMENT, 0.6)]),
    (573, &[(EXCITEMENT, 0.6), (AMUSEMENT, 0.3)]),
    (466, &[(EXCITEMENT, 0.5)]),
    (802, &[(EXCITEMENT, 0.6)]),
    (701, &[(EXCITEMENT, 0.6), (SURPRISE, 0.3)]),
];

/// The evidence of one frame's labels (`(class, probability)`): per emotion, the largest
/// probability times weight over the labels in [`SEEN_AFFECT`].
pub fn frame_probs(labels: &[(u16, f32)]) -> [f32; EMOTION_COUNT] {
    let mut probs = [0f32; EMOTION_COUNT];
    for &(class, p) in labels {
        if let Some((_, emotions)) = SEEN_AFFECT.iter().find(|(c, _)| *c == class) {
            for &(e, w) in *emotions {
                probs[e] = probs[e].max((p * w).clamp(0.0, 1.0));
            }
        }
    }
    probs
}

/// ImageNet-1k classes (standard order) seen as action, for the clip types: assault rifle,
/// revolver, rifle, cannon, missile, tank, military aircraft, race car, sports car, go-kart, fire
/// truck, police van, holster, fireboat, bulletproof vest, chain mail, breastplate, crash helmet.
pub const ACTION_CLASSES: &[u16] =
    &[413, 763, 764, 471, 657, 847, 895, 751, 817, 573, 555, 734, 597, 554, 465, 490, 461, 518];
/// Classes seen as scenery: mountain, cliff, coral reef, geyser, lakeshore, promontory, sandbar,
/// beach, valley, volcano.
pub const SCENERY_CLASSES: &[u16] = &[970, 972, 973, 974, 975, 976, 977, 978, 979, 980];
