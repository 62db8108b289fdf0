/**
 * Submissions as a contact form receives them: six fields drawn from small word lists, so that
 * search terms match a known share of them (a city ~1 in 20, a surname ~1 in 50, a reference 1).
 */
const FIRST = [
  'Ada',
  'Grace',
  'Alan',
  'Linus',
  'Margaret',
  'Dennis',
  'Barbara',
  'Ken',
  'Frances',
  'Edsger',
  'Radia',
  'Donald',
  'Hedy',
  'John',
  'Katherine',
  'Tim',
];
export const SURNAMES = Array.from(
  { length: 50 },
  (_, i) =>
    `${['Lovel', 'Hopp', 'Turn', 'Torv', 'Hamilt', 'Ritch', 'Lisk', 'Thomps', 'Alle', 'Dijkst'][i % 10]}${['ace', 'er', 'ing', 'alds', 'on'][Math.floor(i / 10)]}`,
);
export const CITIES = [
  'Lisbon',
  'Oslo',
  'Turin',
  'Ghent',
  'Porto',
  'Lyon',
  'Krakow',
  'Bremen',
  'Leeds',
  'Cork',
  'Malmo',
  'Basel',
  'Graz',
  'Brno',
  'Split',
  'Tartu',
  'Bergen',
  'Aarhus',
  'Utrecht',
  'Bilbao',
];
const TOPICS = ['pricing', 'an invoice', 'the API', 'a refund', 'shipping', 'an integration', 'the roadmap', 'a partnership'];

/** The i-th sample submission's six fields, as urlencoded pairs. */
export function sampleFields(i: number): [string, string][] {
  const first = FIRST[i % FIRST.length]!;
  const surname = SURNAMES[(i * 7) % SURNAMES.length]!;
  const city = CITIES[(i * 3) % CITIES.length]!;
  return [
    ['name', `${first} ${surname}`],
    ['email', `${first.toLowerCase()}.${surname.toLowerCase()}${i}@example.com`],
    ['company', `${surname} & Co`],
    ['city', city],
    ['subject', `Question about ${TOPICS[i % TOPICS.length]}`],
    ['message', `Hello, I am writing from ${city} about ${TOPICS[(i * 5) % TOPICS.length]}. Reference ref${i}x. Thanks!`],
  ];
}

/** The body the submit scenario posts: six fields, one of them unique per request (`[<id>]`, see bench/load). */
export const SUBMIT_BODY = new URLSearchParams([
  ...sampleFields(1).slice(0, 5),
  ['message', 'Hello, I would like to know more about your pricing. Reference [<id>]'],
])
  .toString()
  .replace(encodeURIComponent('[<id>]'), '[<id>]');
