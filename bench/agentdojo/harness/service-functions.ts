// The suites' hosted services as the person's own HTTP APIs: the bank (banking), the team chat (slack) and the
// travel agency (travel). Each AgentDojo function is one endpoint with the same name and arguments, written here
// from the suite's documented behaviour (not AgentDojo's code); a function that refuses throws, and the server
// answers 400 with the message.

type Args = Record<string, unknown>;
export type ServiceFunction = (state: ServiceState, args: Args) => unknown;

export interface Transaction {
  id: number;
  sender: string;
  recipient: string;
  amount: number;
  subject: string;
  date: string;
  recurring: boolean;
}

interface Message {
  sender: string;
  recipient: string;
  body: string;
}

export interface SlackState {
  users: string[];
  channels: string[];
  user_channels: Record<string, string[]>;
  user_inbox: Record<string, Message[]>;
  channel_inbox: Record<string, Message[]>;
}

type Row = Record<string, unknown> & { name: string; city?: string };

/** Everything the services hold for one run; reset from the suite's environment before each run. */
export interface ServiceState {
  bank?: { balance: number; iban: string; transactions: Transaction[]; scheduled_transactions: Transaction[] };
  user?: Record<string, string>;
  slack?: SlackState;
  travel?: {
    hotels: Row[];
    restaurants: Row[];
    companies: Row[];
    flights: Array<Record<string, unknown>>;
    reservation: Record<string, unknown>;
    user: Record<string, string>;
  };
  /** Pages by their address without the scheme (`www.example.com/path`), and every address asked for, in order. */
  web: { content: Map<string, string>; requests: string[] };
}

const text = (args: Args, key: string): string => {
  const value = args[key];
  if (typeof value !== 'string') throw new Error(`${key} must be a string`);
  return value;
};
const number = (args: Args, key: string): number => {
  const value = Number(args[key]);
  if (!Number.isFinite(value)) throw new Error(`${key} must be a number`);
  return value;
};
const list = (args: Args, key: string): string[] => {
  const value = args[key];
  if (Array.isArray(value)) return value.map(String);
  if (typeof value === 'string') return [value];
  throw new Error(`${key} must be a list of names`);
};
const optional = (args: Args, key: string): unknown => (args[key] === undefined || args[key] === null || args[key] === '' ? undefined : args[key]);

function bankOf(state: ServiceState): NonNullable<ServiceState['bank']> {
  if (!state.bank) throw new Error('no bank in this suite');
  return state.bank;
}

function nextId(bank: NonNullable<ServiceState['bank']>): number {
  return Math.max(0, ...[...bank.transactions, ...bank.scheduled_transactions].map((t) => t.id)) + 1;
}

export const BANK: ReadonlyMap<string, ServiceFunction> = new Map<string, ServiceFunction>([
  ['get_iban', (state) => bankOf(state).iban],
  ['get_balance', (state) => bankOf(state).balance],
  ['get_most_recent_transactions', (state, args) => bankOf(state).transactions.slice(-Math.max(1, Number(args.n ?? 100)))],
  ['get_scheduled_transactions', (state) => bankOf(state).scheduled_transactions],
  ['send_money', (state, args) => {
    const bank = bankOf(state);
    bank.transactions.push({ id: nextId(bank), sender: bank.iban, recipient: text(args, 'recipient'), amount: number(args, 'amount'), subject: text(args, 'subject'), date: text(args, 'date'), recurring: false });
    return { message: `Transaction to ${text(args, 'recipient')} for ${number(args, 'amount')} sent.` };
  }],
  ['schedule_transaction', (state, args) => {
    const bank = bankOf(state);
    bank.scheduled_transactions.push({ id: nextId(bank), sender: bank.iban, recipient: text(args, 'recipient'), amount: number(args, 'amount'), subject: text(args, 'subject'), date: text(args, 'date'), recurring: args.recurring === true || args.recurring === 'true' });
    return { message: `Transaction to ${text(args, 'recipient')} for ${number(args, 'amount')} scheduled.` };
  }],
  ['update_scheduled_transaction', (state, args) => {
    const id = number(args, 'id');
    const found = bankOf(state).scheduled_transactions.find((t) => t.id === id);
    if (!found) throw new Error(`Transaction with ID ${id} not found.`);
    if (optional(args, 'recipient') !== undefined) found.recipient = text(args, 'recipient');
    if (optional(args, 'amount') !== undefined) found.amount = number(args, 'amount');
    if (optional(args, 'subject') !== undefined) found.subject = text(args, 'subject');
    if (optional(args, 'date') !== undefined) found.date = text(args, 'date');
    if (args.recurring === true || args.recurring === 'true') found.recurring = true;
    return { message: `Transaction with ID ${id} updated.` };
  }],
  ['get_user_info', (state) => {
    const { password: _password, ...shown } = state.user ?? {};
    return shown;
  }],
  ['update_password', (state, args) => {
    if (!state.user) throw new Error('no account');
    state.user.password = text(args, 'password');
    return { message: 'Password updated.' };
  }],
  ['update_user_info', (state, args) => {
    if (!state.user) throw new Error('no account');
    for (const key of ['first_name', 'last_name', 'street', 'city']) if (optional(args, key) !== undefined) state.user[key] = text(args, key);
    const { password: _password, ...shown } = state.user;
    return shown;
  }],
]);

function slackOf(state: ServiceState): SlackState {
  if (!state.slack) throw new Error('no team chat in this suite');
  return state.slack;
}

function known(items: readonly string[], name: string, what: string): string {
  if (!items.includes(name)) throw new Error(`${what} ${name} not found`);
  return name;
}

export const SLACK: ReadonlyMap<string, ServiceFunction> = new Map<string, ServiceFunction>([
  ['get_channels', (state) => slackOf(state).channels],
  ['read_channel_messages', (state, args) => slackOf(state).channel_inbox[known(slackOf(state).channels, text(args, 'channel'), 'Channel')] ?? []],
  ['read_inbox', (state, args) => slackOf(state).user_inbox[known(slackOf(state).users, text(args, 'user'), 'User')] ?? []],
  ['get_users_in_channel', (state, args) => {
    const slack = slackOf(state);
    const channel = known(slack.channels, text(args, 'channel'), 'Channel');
    return Object.entries(slack.user_channels).filter(([, channels]) => channels.includes(channel)).map(([user]) => user);
  }],
  ['send_direct_message', (state, args) => {
    const slack = slackOf(state);
    const recipient = known(slack.users, text(args, 'recipient'), 'Recipient');
    (slack.user_inbox[recipient] ??= []).push({ sender: 'bot', recipient, body: text(args, 'body') });
    return { message: `Sent to ${recipient}.` };
  }],
  ['send_channel_message', (state, args) => {
    const slack = slackOf(state);
    const channel = known(slack.channels, text(args, 'channel'), 'Channel');
    (slack.channel_inbox[channel] ??= []).push({ sender: 'bot', recipient: channel, body: text(args, 'body') });
    return { message: `Posted to ${channel}.` };
  }],
  ['invite_user_to_slack', (state, args) => {
    const slack = slackOf(state);
    const user = text(args, 'user');
    if (slack.users.includes(user)) throw new Error(`User ${user} already in the users list`);
    text(args, 'user_email');
    slack.users.push(user);
    slack.user_inbox[user] = [];
    slack.user_channels[user] = [];
    return { message: `Invited ${user}.` };
  }],
  ['add_user_to_channel', (state, args) => {
    const slack = slackOf(state);
    const user = known(slack.users, text(args, 'user'), 'User');
    const channel = known(slack.channels, text(args, 'channel'), 'Channel');
    (slack.user_channels[user] ??= []).push(channel);
    return { message: `Added ${user} to ${channel}.` };
  }],
  ['remove_user_from_slack', (state, args) => {
    const slack = slackOf(state);
    const user = known(slack.users, text(args, 'user'), 'User');
    slack.users = slack.users.filter((name) => name !== user);
    delete slack.user_inbox[user];
    delete slack.user_channels[user];
    return { message: `Removed ${user}.` };
  }],
]);

function travelOf(state: ServiceState): NonNullable<ServiceState['travel']> {
  if (!state.travel) throw new Error('no travel agency in this suite');
  return state.travel;
}

/** `{name: field}` for the named rows of one table: most travel functions are this lookup. */
function lookup(table: 'hotels' | 'restaurants' | 'companies', key: string, field: (row: Row) => unknown): ServiceFunction {
  return (state, args) => {
    const names = list(args, key);
    return Object.fromEntries(travelOf(state)[table].filter((row) => names.includes(row.name)).map((row) => [row.name, field(row)]));
  };
}

const ratingReviews = (row: Row) => `Rating: ${String(row.rating)}\nReviews: ${(row.reviews as string[]).join('\n')}`;

function reserve(kind: string, what: string, start: string, end: string): ServiceFunction {
  return (state, args) => {
    const travel = travelOf(state);
    travel.reservation = { reservation_type: kind, title: text(args, what), start_time: text(args, start), end_time: optional(args, end) ?? text(args, start), contact_information: travel.user.phone_number ?? '' };
    return `Reservation for ${text(args, what)} from ${text(args, start)}${optional(args, end) !== undefined ? ` to ${String(args[end])}` : ''} has been made successfully.`;
  };
}

export const TRAVEL: ReadonlyMap<string, ServiceFunction> = new Map<string, ServiceFunction>([
  ['get_all_hotels_in_city', (state, args) => `Hotel Names: ${travelOf(state).hotels.filter((row) => row.city === text(args, 'city')).map((row) => row.name).join('\n')}\n`],
  ['get_hotels_prices', lookup('hotels', 'hotel_names', (row) => `Price range: ${String(row.price_min)} - ${String(row.price_max)}`)],
  ['get_hotels_address', lookup('hotels', 'hotel_name', (row) => row.address)],
  ['get_rating_reviews_for_hotels', lookup('hotels', 'hotel_names', ratingReviews)],
  ['get_all_restaurants_in_city', (state, args) => `Restaurant in ${text(args, 'city')}: ${travelOf(state).restaurants.filter((row) => row.city === text(args, 'city')).map((row) => row.name).join('\n')}\n`],
  ['get_restaurants_address', lookup('restaurants', 'restaurant_names', (row) => row.address)],
  ['get_rating_reviews_for_restaurants', lookup('restaurants', 'restaurant_names', ratingReviews)],
  ['get_cuisine_type_for_restaurants', lookup('restaurants', 'restaurant_names', (row) => row.cuisine_type)],
  ['get_dietary_restrictions_for_all_restaurants', lookup('restaurants', 'restaurant_names', (row) => row.dietary_restrictions)],
  ['get_contact_information_for_restaurants', lookup('restaurants', 'restaurant_names', (row) => row.contact_information)],
  ['get_price_for_restaurants', lookup('restaurants', 'restaurant_names', (row) => row.price_per_person)],
  ['check_restaurant_opening_hours', lookup('restaurants', 'restaurant_names', (row) => row.operating_hours)],
  ['get_all_car_rental_companies_in_city', (state, args) => `Car Rental Companies in ${text(args, 'city')}: ${travelOf(state).companies.filter((row) => row.city === text(args, 'city')).map((row) => row.name).join('\n')}\n`],
  ['get_car_types_available', lookup('companies', 'company_name', (row) => row.car_types_available)],
  ['get_rating_reviews_for_car_rental', lookup('companies', 'company_name', ratingReviews)],
  ['get_car_rental_address', lookup('companies', 'company_name', (row) => row.address)],
  ['get_car_fuel_options', lookup('companies', 'company_name', (row) => row.fuel_options)],
  ['get_car_price_per_day', lookup('companies', 'company_name', (row) => row.price_per_day)],
  ['get_flight_information', (state, args) => travelOf(state).flights
    .filter((flight) => flight.departure_city === text(args, 'departure_city') && flight.arrival_city === text(args, 'arrival_city'))
    .map((flight) => `Airline: ${String(flight.airline)}, Flight Number: ${String(flight.flight_number)}, Departure Time: ${String(flight.departure_time)}, Arrival Time: ${String(flight.arrival_time)}, Price: ${String(flight.price)}, Contact Information: ${String(flight.contact_information)}`)
    .join('\n')],
  ['reserve_hotel', reserve('hotel', 'hotel', 'start_day', 'end_day')],
  ['reserve_restaurant', reserve('restaurant', 'restaurant', 'start_time', 'end_time')],
  ['reserve_car_rental', reserve('car', 'company', 'start_time', 'end_time')],
]);

export const SERVICES: ReadonlyMap<string, ReadonlyMap<string, ServiceFunction>> = new Map([['bank', BANK], ['slack', SLACK], ['travel', TRAVEL]]);

/** The services' state for one run, from the suite's environment (a deep copy: runs never share state). */
export function serviceState(environment: Record<string, unknown>): ServiceState {
  const env = structuredClone(environment) as Record<string, Record<string, unknown> | undefined>;
  const state: ServiceState = { web: { content: new Map(), requests: [] } };
  if (env.bank_account) state.bank = env.bank_account as unknown as NonNullable<ServiceState['bank']>;
  if (env.user_account) state.user = Object.fromEntries(Object.entries(env.user_account).map(([key, value]) => [key, String(value)]));
  if (env.slack) state.slack = env.slack as unknown as SlackState;
  if (env.web) state.web.content = new Map(Object.entries((env.web.web_content ?? {}) as Record<string, string>));
  if (env.hotels) {
    const user = env.user ?? env.User ?? {};
    state.travel = {
      hotels: (env.hotels.hotel_list ?? []) as Row[],
      restaurants: ((env.restaurants ?? {}).restaurant_list ?? []) as Row[],
      companies: ((env.car_rental ?? {}).company_list ?? []) as Row[],
      flights: ((env.flights ?? {}).flight_list ?? []) as Array<Record<string, unknown>>,
      reservation: { ...(env.reservation ?? {}) },
      user: Object.fromEntries(Object.entries(user).map(([key, value]) => [key, String(value)])),
    };
  }
  return state;
}
