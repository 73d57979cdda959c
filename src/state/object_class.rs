//! [`ObjectClass`]: what a thing is, as a type. The 80 everyday classes of COCO (the object
//! detector's training set, `crate::detect`), keyed as COCO's label map keys them (90 ids
//! with gaps), named as COCO names them and as a wearer would hear them.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

macro_rules! classes {
    ($($variant:ident = $key:literal, $coco:literal, $spoken:literal;)*) => {
        /// One COCO class.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum ObjectClass {
            $(
                #[doc = $coco]
                $variant,
            )*
        }

        impl ObjectClass {
            /// Every class, in the label map's order.
            pub const ALL: &'static [ObjectClass] = &[$(ObjectClass::$variant),*];

            /// The class the detector's label map gives `key` (0 = person; the map has gaps).
            pub fn from_coco_key(key: u32) -> Option<Self> {
                match key {
                    $($key => Some(ObjectClass::$variant),)*
                    _ => None,
                }
            }

            /// The class named `name` as COCO names it ("dining table"), case-insensitive.
            pub fn from_coco_name(name: &str) -> Option<Self> {
                let name = name.trim();
                Self::ALL.iter().copied().find(|c| c.coco_name().eq_ignore_ascii_case(name))
            }

            /// COCO's name ("dining table", "cell phone").
            pub fn coco_name(self) -> &'static str {
                match self {
                    $(ObjectClass::$variant => $coco,)*
                }
            }

            /// The word a wearer hears ("table", "phone").
            pub fn spoken(self) -> &'static str {
                match self {
                    $(ObjectClass::$variant => $spoken,)*
                }
            }
        }
    };
}

classes! {
    Person = 0, "person", "person";
    Bicycle = 1, "bicycle", "bicycle";
    Car = 2, "car", "car";
    Motorcycle = 3, "motorcycle", "motorbike";
    Airplane = 4, "airplane", "aeroplane";
    Bus = 5, "bus", "bus";
    Train = 6, "train", "train";
    Truck = 7, "truck", "truck";
    Boat = 8, "boat", "boat";
    TrafficLight = 9, "traffic light", "traffic light";
    FireHydrant = 10, "fire hydrant", "fire hydrant";
    StopSign = 12, "stop sign", "stop sign";
    ParkingMeter = 13, "parking meter", "parking meter";
    Bench = 14, "bench", "bench";
    Bird = 15, "bird", "bird";
    Cat = 16, "cat", "cat";
    Dog = 17, "dog", "dog";
    Horse = 18, "horse", "horse";
    Sheep = 19, "sheep", "sheep";
    Cow = 20, "cow", "cow";
    Elephant = 21, "elephant", "elephant";
    Bear = 22, "bear", "bear";
    Zebra = 23, "zebra", "zebra";
    Giraffe = 24, "giraffe", "giraffe";
    Backpack = 26, "backpack", "backpack";
    Umbrella = 27, "umbrella", "umbrella";
    Handbag = 30, "handbag", "handbag";
    Tie = 31, "tie", "tie";
    Suitcase = 32, "suitcase", "suitcase";
    Frisbee = 33, "frisbee", "frisbee";
    Skis = 34, "skis", "skis";
    Snowboard = 35, "snowboard", "snowboard";
    SportsBall = 36, "sports ball", "ball";
    Kite = 37, "kite", "kite";
    BaseballBat = 38, "baseball bat", "baseball bat";
    BaseballGlove = 39, "baseball glove", "baseball glove";
    Skateboard = 40, "skateboard", "skateboard";
    Surfboard = 41, "surfboard", "surfboard";
    TennisRacket = 42, "tennis racket", "tennis racket";
    Bottle = 43, "bottle", "bottle";
    WineGlass = 45, "wine glass", "glass";
    Cup = 46, "cup", "cup";
    Fork = 47, "fork", "fork";
    Knife = 48, "knife", "knife";
    Spoon = 49, "spoon", "spoon";
    Bowl = 50, "bowl", "bowl";
    Banana = 51, "banana", "banana";
    Apple = 52, "apple", "apple";
    Sandwich = 53, "sandwich", "sandwich";
    Orange = 54, "orange", "orange";
    Broccoli = 55, "broccoli", "broccoli";
    Carrot = 56, "carrot", "carrot";
    HotDog = 57, "hot dog", "hot dog";
    Pizza = 58, "pizza", "pizza";
    Donut = 59, "donut", "doughnut";
    Cake = 60, "cake", "cake";
    Chair = 61, "chair", "chair";
    Couch = 62, "couch", "sofa";
    PottedPlant = 63, "potted plant", "plant";
    Bed = 64, "bed", "bed";
    DiningTable = 66, "dining table", "table";
    Toilet = 69, "toilet", "toilet";
    Tv = 71, "tv", "television";
    Laptop = 72, "laptop", "laptop";
    Mouse = 73, "mouse", "mouse";
    Remote = 74, "remote", "remote control";
    Keyboard = 75, "keyboard", "keyboard";
    CellPhone = 76, "cell phone", "phone";
    Microwave = 77, "microwave", "microwave";
    Oven = 78, "oven", "oven";
    Toaster = 79, "toaster", "toaster";
    Sink = 80, "sink", "sink";
    Refrigerator = 81, "refrigerator", "fridge";
    Book = 83, "book", "book";
    Clock = 84, "clock", "clock";
    Vase = 85, "vase", "vase";
    Scissors = 86, "scissors", "scissors";
    TeddyBear = 87, "teddy bear", "teddy bear";
    HairDrier = 88, "hair drier", "hair dryer";
    Toothbrush = 89, "toothbrush", "toothbrush";
}

impl ObjectClass {
    /// A road user that moves on wheels (what an alert calls a vehicle).
    pub fn is_vehicle(self) -> bool {
        matches!(
            self,
            ObjectClass::Bicycle
                | ObjectClass::Car
                | ObjectClass::Motorcycle
                | ObjectClass::Bus
                | ObjectClass::Train
                | ObjectClass::Truck
        )
    }
}

impl ObjectClass {
    /// Whether a thing of this class normally stands on the ground (so the foot of its box
    /// in an image is where it meets the floor): people, animals, vehicles, street and room
    /// furniture. A cup, a book or a television rests on something else.
    pub fn stands_on_ground(self) -> bool {
        use ObjectClass::*;
        matches!(
            self,
            Person
                | Bicycle
                | Car
                | Motorcycle
                | Bus
                | Train
                | Truck
                | FireHydrant
                | StopSign
                | ParkingMeter
                | Bench
                | Cat
                | Dog
                | Horse
                | Sheep
                | Cow
                | Elephant
                | Bear
                | Zebra
                | Giraffe
                | Suitcase
                | Chair
                | Couch
                | PottedPlant
                | Bed
                | DiningTable
                | Toilet
                | Refrigerator
        )
    }

    /// About the tallest a thing of this class that stands on the ground is, m (a tall
    /// instance, not the average: a person 2.1, a high-backed chair 1.4, a van 2.5), for a
    /// thing perception placed: one that stands far taller is not of this class (a walker
    /// the detector calls "bed"). `None` for a class that does not stand on the ground or
    /// whose size varies too much to tell (a potted plant, a train).
    pub fn tallest_m(self) -> Option<f32> {
        use ObjectClass::*;
        Some(match self {
            Person => 2.1,
            Bicycle => 1.5,
            Car => 2.5,
            Motorcycle => 1.6,
            Bus | Truck => 4.5,
            FireHydrant => 1.2,
            ParkingMeter => 1.8,
            Bench => 1.2,
            Cat => 0.6,
            Dog => 1.1,
            Sheep => 1.3,
            Horse | Cow => 2.3,
            Zebra => 1.8,
            Suitcase => 1.1,
            Chair => 1.4,
            Couch => 1.2,
            Bed => 1.2,
            DiningTable => 1.2,
            Toilet => 1.2,
            Refrigerator => 2.2,
            _ => return None,
        })
    }
}

impl std::fmt::Display for ObjectClass {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.coco_name())
    }
}

impl Serialize for ObjectClass {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.coco_name())
    }
}

impl<'de> Deserialize<'de> for ObjectClass {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        ObjectClass::from_coco_name(&name)
            .ok_or_else(|| serde::de::Error::custom(format!("{name:?} is not a COCO class")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The label map shipped with the model (`models/detector/coco_labels.txt`): every line's
    /// key gives the class of that name, and there are 80.
    #[test]
    fn keys_and_names_follow_the_models_label_map() {
        let text = include_str!("../../models/detector/coco_labels.txt");
        let mut n = 0;
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let (key, name) = line.trim().split_once(char::is_whitespace).unwrap();
            let class = ObjectClass::from_coco_key(key.parse().unwrap()).unwrap();
            assert_eq!(class.coco_name(), name.trim(), "key {key}");
            assert_eq!(ObjectClass::from_coco_name(name), Some(class));
            n += 1;
        }
        assert_eq!(n, 80);
        assert_eq!(ObjectClass::ALL.len(), 80);
        assert_eq!(ObjectClass::from_coco_key(11), None, "a gap in the map");
        assert_eq!(ObjectClass::from_coco_key(90), None);
    }

    #[test]
    fn spoken_names_are_everyday_words() {
        assert_eq!(ObjectClass::DiningTable.spoken(), "table");
        assert_eq!(ObjectClass::CellPhone.spoken(), "phone");
        assert!(ObjectClass::Bus.is_vehicle() && !ObjectClass::Bench.is_vehicle());
        let json = serde_json::to_string(&ObjectClass::SportsBall).unwrap();
        assert_eq!(json, "\"sports ball\"");
        let back: ObjectClass = serde_json::from_str(&json).unwrap();
        assert_eq!(back, ObjectClass::SportsBall);
        assert!(serde_json::from_str::<ObjectClass>("\"unicorn\"").is_err());
    }
}
