/**
 * The knowledge-update set `npm run eval:memory` scores: facts that change. Each chain is one slot
 * of one user's life (where they live, their doctor, their phone...) told several times with a new
 * value, each version with the date it became true. Twenty topics (twelve English, eight Chinese)
 * for each of ten users make 200 chains of 3 to 5 versions (2 to 4 updates); half of them are
 * keyed (the client passes `key`), half not (it must find the old version and pass `replaces`).
 * Every user has a decoy, another user who tells the same kinds of facts with other values.
 */

export interface Topic {
  /** The slot a guided client passes as `key` in keyed chains. */
  key: string;
  /** How the first version is told. */
  first: string;
  /** How later versions are told, taken in turn. */
  updates: string[];
  /** What a model would look for before storing an update (the guided client's recall). */
  topic: string;
  /** The question the evaluation asks. */
  question: string;
  values: string[];
}

const CITIES = ['Paris', 'Berlin', 'Lisbon', 'Madrid', 'Vienna', 'Prague', 'Oslo', 'Dublin', 'Warsaw', 'Zurich', 'Copenhagen', 'Budapest'];
const ZH_CITIES = ['北京', '上海', '深圳', '广州', '成都', '杭州', '南京', '武汉', '西安', '重庆'];

export const TOPICS: Topic[] = [
  {
    key: 'home city',
    first: 'I live in {v}.',
    updates: ['I moved to {v}.', 'We relocated to {v} last month.', 'Now I am based in {v}.', 'My new home is in {v}.'],
    topic: 'where do I live',
    question: 'which city do I live in',
    values: CITIES,
  },
  {
    key: 'employer',
    first: 'I work at {v}.',
    updates: ['I started a new job at {v}.', 'I joined {v} this week.', 'My employer is now {v}.'],
    topic: 'where I work, my job or employer',
    question: 'where do I work',
    values: ['Acme', 'Globex', 'Initech', 'Umbrella', 'Hooli', 'Cyberdyne', 'Soylent', 'Tyrell', 'Wonka', 'Stark Industries'],
  },
  {
    key: 'doctor',
    first: 'My family doctor is Dr. {v}.',
    updates: ['I switched to a new family doctor, Dr. {v}.', 'Dr. {v} is my doctor now.', 'My GP changed: I see Dr. {v} now.'],
    topic: 'family doctor',
    question: 'who is my doctor',
    values: ['Okafor', 'Smith', 'Nakamura', 'Fischer', 'Rossi', 'Dubois', 'Kowalski', 'Haddad', 'Lindqvist', 'Moreau'],
  },
  {
    key: 'phone',
    first: 'I use a {v} phone.',
    updates: ['I bought a new phone, a {v}.', 'Switched my phone to a {v}.', 'My phone is a {v} these days.'],
    topic: 'my phone',
    question: 'what phone do I have',
    values: ['Pixel 6', 'iPhone 13', 'Galaxy S22', 'Fairphone 4', 'Pixel 8', 'iPhone 15', 'Galaxy S24', 'Nokia X30', 'OnePlus 11', 'Xperia 5'],
  },
  {
    key: 'car',
    first: 'I drive a {v}.',
    updates: ['I sold my old car and bought a {v}.', 'My car is now a {v}.', 'We replaced the car with a {v}.'],
    topic: 'the car I drive',
    question: 'what car do I drive',
    values: [
      'Toyota Prius',
      'Honda Civic',
      'Tesla Model 3',
      'Volkswagen Golf',
      'Ford Focus',
      'Mazda 3',
      'Kia Niro',
      'Renault Zoe',
      'Volvo XC40',
      'Skoda Octavia',
    ],
  },
  {
    key: 'gym',
    first: 'I train at the {v} gym.',
    updates: ['I changed gyms and go to {v} now.', 'My new gym is {v}.', 'These days I work out at {v}.'],
    topic: 'gym I go to',
    question: 'which gym do I train at',
    values: ['Iron Temple', 'FitHub', 'Pulse', 'Urban Strength', 'Core Club', 'Peak', 'Forge', 'Motion', 'Elevate', 'Anchor'],
  },
  {
    key: 'coffee order',
    first: 'My usual coffee order is a {v}.',
    updates: ['These days I order a {v}.', 'I switched my coffee order to a {v}.', 'Now I always get a {v}.'],
    topic: 'coffee order',
    question: 'what is my usual coffee order',
    values: ['flat white', 'latte', 'cappuccino', 'cortado', 'americano', 'macchiato', 'mocha', 'espresso', 'oat latte', 'long black'],
  },
  {
    key: 'weekly running distance',
    first: 'I run {v} km a week.',
    updates: ['I now run {v} km every week.', 'My weekly running went to {v} km.', 'Lately it is {v} km of running per week.'],
    topic: 'running distance per week',
    question: 'how many km do I run per week',
    values: ['10', '15', '20', '25', '30', '35', '40', '45', '50', '55'],
  },
  {
    key: 'bedtime',
    first: 'I go to bed at {v}.',
    updates: ['My bedtime is now {v}.', 'I changed my bedtime to {v}.', 'These days I sleep at {v}.'],
    topic: 'bedtime, when I go to bed',
    question: 'what time do I go to bed',
    values: ['10 pm', '11 pm', 'midnight', '9:30 pm', '10:30 pm', '11:30 pm', '1 am', '9 pm', '12:30 am', '8:30 pm'],
  },
  {
    key: 'lisinopril dose',
    first: 'I take {v} of lisinopril daily.',
    updates: ['My lisinopril dose changed to {v}.', 'The doctor set my lisinopril to {v}.', 'Now on {v} of lisinopril.'],
    topic: 'lisinopril dose',
    question: 'what is my lisinopril dose',
    values: ['5 mg', '10 mg', '20 mg', '40 mg', '2.5 mg', '15 mg', '30 mg', '7.5 mg', '25 mg', '35 mg'],
  },
  {
    key: 'language learning',
    first: 'I am learning {v}.',
    updates: ['I switched to learning {v}.', 'My new language is {v}.', 'Now I study {v} in the evenings.'],
    topic: 'language I am learning',
    question: 'which language am I learning',
    values: ['Japanese', 'Spanish', 'German', 'Italian', 'Korean', 'Portuguese', 'Dutch', 'Swedish', 'Greek', 'Turkish'],
  },
  {
    key: 'dentist',
    first: 'My dentist is at the {v} clinic.',
    updates: ['I moved to the {v} dental clinic.', 'My dentist practice is {v} now.', 'I see a dentist at {v} these days.'],
    topic: 'dentist',
    question: 'where is my dentist',
    values: ['Riverside', 'Hillview', 'Central', 'Northgate', 'Lakeside', 'Parkway', 'Old Town', 'Harbour', 'Maple', 'Sunrise'],
  },
  {
    key: '居住城市',
    first: '我住在{v}。',
    updates: ['我搬到了{v}。', '现在我住在{v}。', '我们全家搬去了{v}。'],
    topic: '我住在哪里',
    question: '我住在哪个城市',
    values: ZH_CITIES,
  },
  {
    key: '工作单位',
    first: '我在{v}工作。',
    updates: ['我跳槽去了{v}。', '现在我在{v}上班。', '我的新东家是{v}。'],
    topic: '我的工作单位',
    question: '我在哪家公司工作',
    values: ['腾讯', '阿里巴巴', '华为', '字节跳动', '百度', '京东', '美团', '小米', '网易', '携程'],
  },
  {
    key: '家庭医生',
    first: '我的家庭医生是{v}医生。',
    updates: ['我换了家庭医生，现在是{v}医生。', '{v}医生成了我的新医生。', '现在给我看病的是{v}医生。'],
    topic: '家庭医生',
    question: '我的家庭医生是谁',
    values: ['王', '李', '张', '刘', '陈', '杨', '赵', '黄', '周', '吴'],
  },
  {
    key: '手机',
    first: '我用的是{v}手机。',
    updates: ['我新买了一部{v}。', '我换成了{v}。', '现在用{v}了。'],
    topic: '我的手机',
    question: '我用什么手机',
    values: ['华为Mate', '小米14', '苹果15', 'OPPO Find', 'vivo X100', '三星S24', '荣耀Magic', '一加12', '魅族21', '真我GT'],
  },
  {
    key: '汽车',
    first: '我开的是{v}。',
    updates: ['我换了一辆{v}。', '我的新车是{v}。', '现在开{v}了。'],
    topic: '我开的车',
    question: '我开什么车',
    values: ['特斯拉', '比亚迪', '蔚来', '理想', '小鹏', '大众', '丰田', '本田', '吉利', '长安'],
  },
  {
    key: '咖啡',
    first: '我平时喝{v}。',
    updates: ['最近我改喝{v}了。', '现在我只点{v}。', '我换成喝{v}了。'],
    topic: '我平时喝什么',
    question: '我平时喝什么咖啡',
    values: ['拿铁', '美式', '卡布奇诺', '摩卡', '澳白', '浓缩', '燕麦拿铁', '焦糖玛奇朵', '冷萃', '生椰拿铁'],
  },
  {
    key: '跑步距离',
    first: '我每周跑{v}公里。',
    updates: ['现在我每周跑{v}公里了。', '我把每周跑量加到了{v}公里。', '这段时间一周跑{v}公里。'],
    topic: '我每周跑多少',
    question: '我每周跑多少公里',
    values: ['10', '15', '20', '25', '30', '35', '40', '45', '50', '55'],
  },
  {
    key: '睡觉时间',
    first: '我每天晚上{v}睡觉。',
    updates: ['我现在{v}就睡了。', '我把睡觉时间改到了{v}。', '最近都是{v}上床。'],
    topic: '睡觉时间',
    question: '我几点睡觉',
    values: ['十点', '十一点', '十二点', '九点半', '十点半', '十一点半', '一点', '九点', '八点半', '零点半'],
  },
];

/**
 * The facts of memory-eval-set.ts told between the updates: those on none of the topics above
 * (where a user's mother lives is no answer to where the user lives).
 */
export const UNRELATED_FACTS = [
  'peanut',
  'daughter',
  'son',
  'dog',
  'cat',
  'tea',
  'vegetarian',
  'spicy',
  'swimming',
  'diabetes',
  'piano',
  'book',
  'travel',
  'birthday',
  'seat',
  'weight',
  'lactose',
  'meeting',
  'glasses',
  'garden',
  'podcast',
  'bank',
  'vaccine',
  'knee',
  'editor',
  'timezone',
  'anniversary',
  'zh_daughter',
  'zh_allergy',
  'zh_tea',
  'zh_travel',
  'zh_piano',
  'zh_diet',
  'zh_dog',
  'zh_bp',
];

export const EVAL_USERS = 10;
const DAY_MS = 86_400_000;
/** Versions of one chain are this far apart, so that every as-of checkpoint falls well inside one version's interval. */
const VERSION_SPACING_DAYS = 300;

export interface Version {
  text: string;
  /** The date the fact became true, as the client passes it (`valid_from`). */
  validFrom: string;
  /** A date inside this version's interval: the as-of question's time. */
  checkpoint: string;
}

export interface Chain {
  user: number;
  topic: Topic;
  keyed: boolean;
  versions: Version[];
}

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The chains of user `user` (0-based) and, with `decoy`, of that user's decoy: the same topics, other values, unkeyed. */
export function chainsOf(user: number, decoy = false): Chain[] {
  return TOPICS.map((topic, index) => {
    const updates = 2 + ((user * 7 + index) % 3);
    const start = Date.UTC(2017, 0, 1) + (index * 11 + user * 5) * DAY_MS;
    const versions = Array.from({ length: updates + 1 }, (_, version): Version => {
      const value = topic.values[(user * 3 + version + (decoy ? 5 : 0)) % topic.values.length]!;
      const template = version === 0 ? topic.first : topic.updates[(version - 1 + user) % topic.updates.length]!;
      const from = start + version * VERSION_SPACING_DAYS * DAY_MS;
      return { text: template.replace('{v}', value), validFrom: isoDay(from), checkpoint: isoDay(from + (VERSION_SPACING_DAYS / 2) * DAY_MS) };
    });
    return { user, topic, keyed: !decoy && (user + index) % 2 === 0, versions };
  });
}
