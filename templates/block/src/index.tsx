// {{title}}: a UI block (ContentKit, docs/authoring.md). render() draws it from its state; the
// button's onPress sends an action to action(), which returns the next state.
import { createComponent, createIntegration } from 'sandbox-api';

interface Props {
  label?: string;
}

interface State {
  count: number;
}

const block = createComponent<Props, State>({
  componentId: '{{name}}',
  initialState: () => ({ count: 0 }),
  async action(element, action) {
    if (action.action === 'increment') return { state: { count: element.state.count + 1 } };
    return {};
  },
  async render(element) {
    return (
      <block>
        <text>{`${element.props.label ?? 'Pressed'}: ${element.state.count}`}</text>
        <button label="Press me" onPress={{ action: 'increment' }} />
      </block>
    );
  },
});

export default createIntegration({ components: [block] });
